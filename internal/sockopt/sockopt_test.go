package sockopt

import "testing"

func TestDeliveredSince(t *testing.T) {
	base := &TCPInfo{Delivered: 100, SndMSS: 1448, BytesAcked: 144800}
	// Full segments: delivered × MSS.
	full := &TCPInfo{Delivered: 1100, SndMSS: 1448, BytesSent: 1100 * 1448, DataSegsOut: 1100, BytesAcked: 1448000}
	if got := full.DeliveredSince(base); got != 1000*1448 {
		t.Errorf("full segments: %d", got)
	}
	// A 128 KiB write ends in a short segment (91 segments for 131072
	// bytes): counting them as full would overstate by 0.5%.
	short := &TCPInfo{Delivered: 100 + 91*100, SndMSS: 1448, BytesSent: 131072 * 100, DataSegsOut: 91 * 100}
	if got := short.DeliveredSince(base); got < 131072*100-100 || got > 131072*100+100 {
		t.Errorf("short segments: %d, want %d", got, 131072*100)
	}
	// Without tcpi_delivered: bytes acked.
	old := &TCPInfo{SndMSS: 1448, BytesAcked: 144800 + 5000}
	if got := old.DeliveredSince(&TCPInfo{BytesAcked: 144800}); got != 5000 {
		t.Errorf("fallback: %d", got)
	}
	if got := (&TCPInfo{BytesReceived: 900}).ReceivedSince(&TCPInfo{BytesReceived: 100}); got != 800 {
		t.Errorf("received: %d", got)
	}
	if got := (&TCPInfo{Unacked: 10, SndMSS: 1448}).InflightBytes(); got != 14480 {
		t.Errorf("in flight: %d", got)
	}
}

func TestIsIPv6(t *testing.T) {
	for addr, want := range map[string]bool{"[::1]:5201": true, "127.0.0.1:5201": false, "[::ffff:10.0.0.1]:1": false, "host:1": false, "::1": false} {
		if got := IsIPv6(addr); got != want {
			t.Errorf("%s: %v", addr, got)
		}
	}
}
