//go:build !linux

package engine

import (
	"errors"
	"net"
)

// rawSocket is the Linux data path (rawio_linux.go); elsewhere streams
// stay on net.Conn.
type rawSocket struct{}

func detach(net.Conn) (*rawSocket, error) { return nil, errors.ErrUnsupported }

func (*rawSocket) interrupt()   {}
func (*rawSocket) Close() error { return nil }

func (s *Stream) runRaw(runConfig) bool { return false }

func (*rawSocket) Control(func(uintptr)) error    { return errors.ErrUnsupported }
func (*rawSocket) Read(func(uintptr) bool) error  { return errors.ErrUnsupported }
func (*rawSocket) Write(func(uintptr) bool) error { return errors.ErrUnsupported }
