package engine

import (
	"errors"
	"syscall"
)

func isRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

func isNoBufs(err error) bool { return errors.Is(err, syscall.ENOBUFS) }
