//go:build !linux

package client

func autotuneLimits() string { return "the system's autotuning limits" }

func capReason() string { return " (the system's socket-buffer maximum)" }
