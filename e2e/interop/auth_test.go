package interop_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/auth"
	"github.com/tcptune/tcptune/internal/testutil"
	"github.com/tcptune/tcptune/internal/wire"
)

// authFiles are a key pair and an authorized-users file with one user,
// mario, whose password is S3cr3t.
type authFiles struct {
	key                    *rsa.PrivateKey
	private, public, users string
}

const goodPassword = "S3cr3t"

func newAuthFiles(t *testing.T) authFiles {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f := authFiles{key: key, private: filepath.Join(dir, "private.pem"), public: filepath.Join(dir, "public.pem"), users: filepath.Join(dir, "users.csv")}
	pkcs8, _ := x509.MarshalPKCS8PrivateKey(key)
	pkix, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	for path, body := range map[string][]byte{
		f.private: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}),
		f.public:  pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pkix}),
		f.users:   []byte("# user,sha256(\"{user}password\")\nmario," + auth.PasswordHash("mario", goodPassword) + "\n"),
	} {
		if err := os.WriteFile(path, body, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// authAttempt is one login, as the user would type it.
type authAttempt struct {
	name, user, password string
	ok                   bool
}

var authAttempts = []authAttempt{
	{"good", "mario", goodPassword, true},
	{"bad user", "luigi", goodPassword, false},
	{"bad password", "mario", "s3cr3t", false},
	{"no token", "", "", false},
}

// login runs a one-second client, bin, with the attempt's credentials.
func login(t *testing.T, bin string, port int, f authFiles, a authAttempt, pkcs1 bool) (string, error) {
	t.Helper()
	args := []string{"-c", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "1", "-J"}
	if a.user != "" {
		args = append(args, "--username", a.user, "--rsa-public-key-path", f.public)
		t.Setenv(auth.PasswordEnv, a.password)
	}
	if pkcs1 && a.user != "" && !strings.HasSuffix(bin, "iperf3") {
		args = append(args, "--use-pkcs1-padding") // 3.12 has no such flag, and pads with PKCS#1
	}
	if !strings.HasSuffix(bin, "iperf3") {
		args = append([]string{"bench"}, args...)
	}
	out, errOut, err := runRetrying(t, 30*time.Second, bin, args...)
	return out + errOut, err
}

// staleLogin speaks the protocol by hand to send a good user and
// password whose token is a minute old; it returns the server's answer:
// the i_errno of SERVER_ERROR, or 0 if it closed the connection (3.19+).
func staleLogin(t *testing.T, port int, f authFiles, pkcs1 bool) (int, bool) {
	t.Helper()
	tok, err := auth.Token(&f.key.PublicKey, "mario", goodPassword, time.Now().Add(-time.Minute), pkcs1)
	if err != nil {
		t.Fatal(err)
	}
	return tokenLogin(t, port, tok)
}

// tokenLogin sends a token by hand, as a captured one would be sent
// again: the i_errno of a refusal, or accepted.
func tokenLogin(t *testing.T, port int, tok string) (int, bool) {
	t.Helper()
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	ck := wire.NewCookie()
	c.Write(ck[:])
	if st, err := wire.ReadState(c); err != nil || st != wire.ParamExchange {
		t.Fatalf("want PARAM_EXCHANGE, got %v %v", st, err)
	}
	body, err := wire.Params{Time: 1, Parallel: 1, ServerAffinity: -1, Authtoken: tok, ClientVersion: "3.22"}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	wire.WriteRaw(c, body)
	st, err := wire.ReadState(c)
	if err != nil {
		return 0, false // closed: refused without a reason, as 3.19+ does
	}
	if st != wire.ServerError {
		return 0, true // the test goes on: accepted
	}
	e, err := wire.ReadErrorPayload(c)
	if err != nil {
		t.Fatalf("SERVER_ERROR without i_errno: %v", err)
	}
	return e.Code, false
}

// iperf3 clients (3.12 with PKCS#1 padding, 3.22 with OAEP) against
// tcptune serve requiring authentication: a good login runs, a bad user,
// a bad password, a missing token and a stale one are refused with
// iperf3's error 142, and the log names neither the failed user nor any
// password.
func TestAuthIperf3ClientTcptuneServer(t *testing.T) {
	f := newAuthFiles(t)
	for _, pr := range peers(t) {
		t.Run(pr.name, func(t *testing.T) {
			pkcs1 := pr.name == "3.12"
			args := []string{"--rsa-private-key-path", f.private, "--authorized-users-path", f.users}
			if pkcs1 {
				args = append(args, "--use-pkcs1-padding")
			}
			port, srv := startTcptuneServer(t, args...)
			for _, a := range authAttempts {
				out, err := login(t, pr.path, port, f, a, pkcs1)
				if a.ok {
					if err != nil {
						t.Fatalf("%s: refused: %v\n%s\nserver: %s", a.name, err, out, srv.Stderr.String())
					}
					check(t, parseForeign(t, out), []string{"-t", "1"}, false)
					continue
				}
				// (3.12 -J exits 0 with the error in its document.)
				if !strings.Contains(out, `"test authorization failed"`) && !strings.Contains(out, "error - test authorization failed") {
					t.Errorf("%s: want iperf3's \"test authorization failed\", got %v\n%s", a.name, err, out)
				}
			}
			if code, accepted := staleLogin(t, port, f, pkcs1); accepted || code != wire.IEAuthTest {
				t.Errorf("stale token: accepted %v, i_errno %d, want %d", accepted, code, wire.IEAuthTest)
			}
			// A token captured from the clear-text channel, sent again
			// within the skew window, is refused.
			tok, err := auth.Token(&f.key.PublicKey, "mario", goodPassword, time.Now(), pkcs1)
			if err != nil {
				t.Fatal(err)
			}
			if _, accepted := tokenLogin(t, port, tok); !accepted {
				t.Fatal("a fresh token sent by hand was refused")
			}
			if code, accepted := tokenLogin(t, port, tok); accepted || code != wire.IEAuthTest {
				t.Errorf("replayed token: accepted %v, i_errno %d, want %d", accepted, code, wire.IEAuthTest)
			}
			// Five refusals and two successes within seconds: the refusals
			// are logged once (rate-limited, with a count), the successes
			// each.
			var log string
			for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if log = srv.Stderr.String() + srv.Stdout.String(); strings.Count(log, "authentication succeeded") >= 2 {
					break
				}
			}
			if strings.Count(log, "authentication succeeded") != 2 || strings.Count(log, "test authorization failed") != 1 {
				t.Errorf("want two successes and one (rate-limited) failure line logged:\n%s", log)
			}
			for _, secret := range []string{"luigi", goodPassword, "s3cr3t"} {
				if strings.Contains(log, secret) {
					t.Errorf("the server's log holds %q:\n%s", secret, log)
				}
			}
		})
	}
}

// tcptune bench against iperf3 servers requiring authentication (3.12
// with --use-pkcs1-padding on our side, 3.22 with OAEP): the same logins.
// A refusal by 3.22, which closes the connection without a reason, must
// fail the test too.
func TestAuthTcptuneClientIperf3Server(t *testing.T) {
	f := newAuthFiles(t)
	bin := testutil.Binary(t)
	for _, pr := range peers(t) {
		t.Run(pr.name, func(t *testing.T) {
			pkcs1 := pr.name == "3.12"
			port, _ := testutil.ServeOnFreePort(t, pr.path, func(port int) []string {
				return []string{"-s", "-p", strconv.Itoa(port), "--rsa-private-key-path", f.private, "--authorized-users-path", f.users}
			})
			for _, a := range authAttempts {
				out, err := login(t, bin, port, f, a, pkcs1)
				if a.ok {
					if err != nil {
						t.Fatalf("%s: refused: %v\n%s", a.name, err, out)
					}
					check(t, parse(t, out), []string{"-t", "1"}, false)
					continue
				}
				if err == nil || !(strings.Contains(out, "authorization failed") || strings.Contains(out, "may have refused them") || strings.Contains(out, "requires authentication")) {
					t.Errorf("%s: want a refusal, got %v\n%s", a.name, err, out)
				}
				time.Sleep(200 * time.Millisecond) // iperf3 resets between tests
			}
			code, accepted := staleLogin(t, port, f, pkcs1)
			if accepted || (pkcs1 && code != wire.IEAuthTest) {
				t.Errorf("stale token: accepted %v, i_errno %d", accepted, code)
			}
		})
	}
}
