// Package relay joins two devices (TUN devices in the lab; see Device)
// through the link model of package
// linkem, one reader and one writer goroutine per direction. Writers
// wait for each packet's release time on a timerfd parked in the
// netpoller (time.Sleep rounds to milliseconds), and record how late
// each write was. Linux only.
package relay
