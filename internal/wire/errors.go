package wire

import (
	"fmt"
	"syscall"
)

// iperf3 i_errno values used by tcptune (iperf3 src/iperf_api.h); the
// numbers are stable across versions.
const (
	IEDuration         = 5
	IENumStreams       = 6
	IEBlockSize        = 7
	IEBufSize          = 8
	IEMSS              = 10
	IEOmit             = 12
	IEBurst            = 15
	IEUDPBlockSize     = 20
	IEBadTOS           = 21
	IETotalRate        = 27
	IEMaxDuration      = 37
	IECtrlClose        = 109
	IEMessage          = 110
	IERecvParams       = 114
	IERecvResults      = 117
	IEClientTerm       = 119
	IEServerTerm       = 120
	IEAccessDenied     = 121
	IESetBuf           = 124
	IESetCongestion    = 134
	IESetBuf2          = 141
	IEAuthTest         = 142
	IENoMsg            = 144
	IEServerTestExpire = 160
	IEStreamConnect    = 203
	IEStreamAccept     = 204
	IEStreamWrite      = 205
	IEStreamRead       = 206
	IEStreamID         = 208
)

var errText = map[int]string{
	IEDuration:         "test duration too long (maximum = 86400 seconds)",
	IENumStreams:       "number of parallel streams too large (maximum = 128)",
	IEBlockSize:        "block size too large (maximum = 1048576 bytes)",
	IEBufSize:          "socket buffer size too large (maximum = 536870912 bytes)",
	IEMSS:              "TCP MSS too large (maximum = 32767 bytes)",
	IEOmit:             "bogus value for --omit",
	IEBurst:            "invalid burst count (maximum = 1000)",
	IEUDPBlockSize:     "block size invalid (minimum = 16 bytes, maximum = 65507 bytes)",
	IEBadTOS:           "bad TOS value (must be between 0 and 255 inclusive)",
	IETotalRate:        "total required bandwidth is larger than server limit",
	IEMaxDuration:      "client's requested duration exceeds the server's maximum permitted limit",
	IECtrlClose:        "control socket has closed unexpectedly",
	IEMessage:          "received an unknown control message",
	IERecvParams:       "unable to receive parameters from client",
	IERecvResults:      "unable to receive results",
	IEClientTerm:       "the client has terminated",
	IEServerTerm:       "the server has terminated",
	IEAccessDenied:     "the server is busy running a test. try again later",
	IESetBuf:           "unable to set socket buffer size",
	IESetCongestion:    "unable to set TCP_CONGESTION: supplied congestion control algorithm not supported on this host",
	IESetBuf2:          "socket buffer size not set correctly",
	IEAuthTest:         "test authorization failed",
	IENoMsg:            "idle timeout for receiving data",
	IEServerTestExpire: "server test duration expired",
	IEStreamConnect:    "unable to connect stream",
	IEStreamAccept:     "unable to accept stream connection",
	IEStreamWrite:      "unable to write to stream socket",
	IEStreamRead:       "unable to read from stream socket",
	IEStreamID:         "stream has an invalid id",
}

// Error is an iperf3 error: its i_errno and the OS errno (0 if none).
type Error struct {
	Code  int
	Errno int
}

func (e *Error) Error() string {
	t, ok := errText[e.Code]
	if !ok {
		t = fmt.Sprintf("iperf3 error %d", e.Code)
	}
	if e.Code >= 100 && e.Errno != 0 {
		t += ": " + syscall.Errno(e.Errno).Error()
	}
	return t
}

// Errorf makes an Error with the given code.
func Errorf(code int) *Error { return &Error{Code: code} }
