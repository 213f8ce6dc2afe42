package server

import (
	"testing"

	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/limits"
	"github.com/tcptune/tcptune/internal/testutil"
	"github.com/tcptune/tcptune/internal/wire"
)

// serve's "tcptune" object is in the schema users read.
func TestDocumentExtMatchesSchema(t *testing.T) {
	drops := int64(0)
	d := documentExt{
		Ext: wire.Ext{Version: "test", Cores: 2, SndBuf: 1, RcvBuf: 2, RcvbufErrors: &drops,
			Received: []wire.ExtReceived{{ID: 1, Seconds: 2, Bytes: 3, RcvWnd: 4, RcvBuf: 5, RcvRTT: 6, MinRTT: 7, MSS: 1448}}},
		Limits: []limits.Verdict{{Direction: limits.ClientToServer, Result: attrib.Result{Limit: attrib.ReceiverWindow, From: attrib.FromReceiver, Verdict: "limited by the receiver's window"}}},
	}
	testutil.CheckSchema(t, d, "")
}
