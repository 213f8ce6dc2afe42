// Package wire implements iperf3's control protocol: the cookie, the
// one-byte state codes, length-prefixed JSON messages and the error
// payload, as specified in shared/reference/iperf3-protocol.md. It holds
// no sockets of its own; callers pass readers and writers with deadlines.
package wire

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Protocol constants (iperf3 src/iperf.h, iperf_api.h).
const (
	DefaultPort    = 5201
	CookieSize     = 37
	MaxParamsJSON  = 8192
	MaxResultsJSON = 4 << 20 // our own bound; iperf3 sets none
	MaxParallel    = 128
	MaxDuration    = 86400
	MaxOmit        = 600
	DefaultTCPLen  = 128 * 1024
	MaxTCPLen      = 1 << 20
	MinUDPLen      = 16
	MaxUDPLen      = 65507
	MaxWindow      = 512 << 20
	MaxMSS         = 32767
	MaxBurst       = 1000
	DefaultUDPRate = 1024 * 1024
	Version        = "3.22" // the iperf3 version whose wire behaviour we speak
)

// State is a control-channel state code. It is a signed byte on the wire.
type State int8

// State codes (iperf3 src/iperf_api.h).
const (
	TestStart       State = 1
	TestRunning     State = 2
	TestEnd         State = 4
	ParamExchange   State = 9
	CreateStreams   State = 10
	ServerTerminate State = 11
	ClientTerminate State = 12
	ExchangeResults State = 13
	DisplayResults  State = 14
	IperfDone       State = 16
	AccessDenied    State = -1
	ServerError     State = -2
)

var stateNames = map[State]string{
	TestStart: "TEST_START", TestRunning: "TEST_RUNNING", TestEnd: "TEST_END",
	ParamExchange: "PARAM_EXCHANGE", CreateStreams: "CREATE_STREAMS",
	ServerTerminate: "SERVER_TERMINATE", ClientTerminate: "CLIENT_TERMINATE",
	ExchangeResults: "EXCHANGE_RESULTS", DisplayResults: "DISPLAY_RESULTS",
	IperfDone: "IPERF_DONE", AccessDenied: "ACCESS_DENIED", ServerError: "SERVER_ERROR",
}

func (s State) String() string {
	if n, ok := stateNames[s]; ok {
		return n
	}
	return fmt.Sprintf("state(%d)", int8(s))
}

// cookieAlphabet is iperf3's base32-like cookie alphabet.
const cookieAlphabet = "abcdefghijklmnopqrstuvwxyz234567"

// NewCookie returns a fresh 37-byte cookie: 36 random characters and a NUL.
func NewCookie() [CookieSize]byte {
	var c [CookieSize]byte
	var rnd [CookieSize - 1]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	for i, b := range rnd {
		c[i] = cookieAlphabet[int(b)%len(cookieAlphabet)]
	}
	return c
}

// CookieString returns the printable part of a cookie.
func CookieString(c [CookieSize]byte) string {
	n := 0
	for n < CookieSize && c[n] != 0 {
		n++
	}
	return string(c[:n])
}

// ValidCookie reports whether c has the shape of an iperf3 cookie:
// printable ASCII terminated by NUL. Old iperf3 versions used other
// alphabets, so only the shape is checked.
func ValidCookie(c [CookieSize]byte) bool {
	if c[CookieSize-1] != 0 {
		return false
	}
	for _, b := range c[:CookieSize-1] {
		if b < 0x21 || b > 0x7e {
			return false
		}
	}
	return true
}

// ReadState reads one state byte.
func ReadState(r io.Reader) (State, error) {
	var b [1]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return 0, err
	}
	return State(int8(b[0])), nil
}

// WriteState writes one state byte.
func WriteState(w io.Writer, s State) error {
	_, err := w.Write([]byte{uint8(s)})
	return err
}

// ErrEmptyMessage and ErrMessageTooLarge are framing violations.
var (
	ErrEmptyMessage    = errors.New("JSON message of length 0")
	ErrMessageTooLarge = errors.New("JSON message too large")
)

// ReadJSON reads one length-prefixed JSON message of at most max bytes.
// The length is checked before anything is allocated.
func ReadJSON(r io.Reader, max int) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n == 0 {
		return nil, ErrEmptyMessage
	}
	if uint64(n) > uint64(max) {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrMessageTooLarge, n, max)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if !json.Valid(buf) {
		return nil, errors.New("message is not valid JSON")
	}
	return buf, nil
}

// WriteJSON marshals v compactly and writes it with its length prefix.
func WriteJSON(w io.Writer, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return WriteRaw(w, body)
}

// WriteRaw writes an already-encoded JSON body with its length prefix.
func WriteRaw(w io.Writer, body []byte) error {
	msg := make([]byte, 4+len(body))
	binary.BigEndian.PutUint32(msg, uint32(len(body)))
	copy(msg[4:], body)
	_, err := w.Write(msg)
	return err
}

// WriteServerError writes SERVER_ERROR followed by i_errno and errno,
// the full 9-byte form that every iperf3 version understands.
func WriteServerError(w io.Writer, ierrno, errno int) error {
	var b [9]byte
	b[0] = 0xfe // SERVER_ERROR
	binary.BigEndian.PutUint32(b[1:], uint32(int32(ierrno)))
	binary.BigEndian.PutUint32(b[5:], uint32(int32(errno)))
	_, err := w.Write(b[:])
	return err
}

// ReadErrorPayload reads the payload that follows SERVER_ERROR. Some
// iperf3 versions send only i_errno, so EOF after it is accepted.
func ReadErrorPayload(r io.Reader) (*Error, error) {
	var b [4]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return nil, err
	}
	e := &Error{Code: int(int32(binary.BigEndian.Uint32(b[:])))}
	if _, err := io.ReadFull(r, b[:]); err == nil {
		e.Errno = int(int32(binary.BigEndian.Uint32(b[:])))
	}
	return e, nil
}
