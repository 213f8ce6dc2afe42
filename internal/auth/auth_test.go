package auth

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testKey is generated once: RSA key generation is slow.
var testKey = func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
}()

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPasswordHashIsIperf3s(t *testing.T) {
	// As iperf3's documentation computes it:
	// printf '%s' '{mario}S3cr3t' | sha256sum
	if got := PasswordHash("mario", "S3cr3t"); got != "a1ac99fca96db04330a66a137e0cc846b22a06c926955b05d7fa44f98f873b37" {
		t.Fatalf("hash %s", got)
	}
	if PasswordHash("a", "bc") == PasswordHash("ab", "c") {
		t.Fatal("the salt does not separate user and password")
	}
}

func TestTokenRoundTrip(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	users := writeFile(t, "users.csv", "# comment\r\n\r\nnocomma\nmario,"+PasswordHash("mario", "S3cr3t")+"\r\nluigi,"+PasswordHash("luigi", "x")+"\n")
	for _, pkcs1 := range []bool{false, true} {
		v := &Verifier{Key: testKey, UsersPath: users, PKCS1: pkcs1, Now: func() time.Time { return now }, Limits: Limits{PerAddr: 1000, PerPrefix: 1000, Global: 1000, Burst: 1}}
		tok := func(user, pw string, at time.Time, pk bool) string {
			s, err := Token(&testKey.PublicKey, user, pw, at, pk)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		cases := []struct {
			name  string
			token string
			want  error
		}{
			{"good", tok("mario", "S3cr3t", now, pkcs1), nil},
			{"second user", tok("luigi", "x", now.Add(-9*time.Second), pkcs1), nil},
			{"wrong password", tok("mario", "s3cr3t", now, pkcs1), ErrCredentials},
			{"unknown user", tok("peach", "S3cr3t", now, pkcs1), ErrCredentials},
			{"stale", tok("mario", "S3cr3t", now.Add(-11*time.Second), pkcs1), ErrStale},
			{"future", tok("mario", "S3cr3t", now.Add(11*time.Second), pkcs1), ErrStale},
			{"other padding", tok("mario", "S3cr3t", now, !pkcs1), ErrBadToken},
			{"missing", "", ErrNoToken},
			{"not base64", "!!!", ErrBadToken},
			{"short", "AAAA", ErrBadToken},
		}
		for _, c := range cases {
			user, err := v.Check(client, c.token)
			if !errors.Is(err, c.want) {
				t.Errorf("pkcs1=%v %s: %v, want %v", pkcs1, c.name, err, c.want)
			}
			if c.want == nil && user == "" {
				t.Errorf("pkcs1=%v %s: no user", pkcs1, c.name)
			}
		}
	}
	// A user file that cannot be read refuses everyone.
	v := &Verifier{Key: testKey, UsersPath: "/nonexistent/users", Now: func() time.Time { return now }}
	s, _ := Token(&testKey.PublicKey, "mario", "S3cr3t", now, false)
	if _, err := v.Check(client, s); err == nil {
		t.Error("accepted without a users file")
	}
}

func TestTokenRefusesWhatIperf3CannotCarry(t *testing.T) {
	for _, c := range [][2]string{{"ma rio", "p"}, {"mario", "pa ss"}, {"", "p"}, {"mario", ""}, {"mario", "p\nts: 1"}} {
		if _, err := Token(&testKey.PublicKey, c[0], c[1], time.Now(), false); err == nil {
			t.Errorf("token for %q/%q accepted", c[0], c[1])
		}
	}
}

func TestPlaintextIsIperf3sFormat(t *testing.T) {
	if got := plaintext("mario", "pw", 42); got != "user: mario\npwd:  pw\nts:   42" {
		t.Fatalf("%q", got)
	}
	for _, s := range []string{"user: a\npwd: b\nts: x", "user: a\npwd:  b", "usr: a\npwd:  b\nts:   1"} {
		if _, _, _, ok := parsePlaintext(s); ok {
			t.Errorf("parsed %q", s)
		}
	}
}

func TestLoadKeys(t *testing.T) {
	pkcs8, _ := x509.MarshalPKCS8PrivateKey(testKey)
	pkix, _ := x509.MarshalPKIXPublicKey(&testKey.PublicKey)
	for name, body := range map[string][]byte{
		"pkcs8": pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}),
		"pkcs1": pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(testKey)}),
	} {
		k, err := LoadPrivateKey(writeFile(t, name, string(body)))
		if err != nil || !k.Equal(testKey) {
			t.Errorf("%s private key: %v", name, err)
		}
	}
	for name, body := range map[string][]byte{
		"pkix":  pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pkix}),
		"pkcs1": pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(&testKey.PublicKey)}),
	} {
		k, err := LoadPublicKey(writeFile(t, name, string(body)))
		if err != nil || !k.Equal(&testKey.PublicKey) {
			t.Errorf("%s public key: %v", name, err)
		}
	}
	if _, err := LoadPublicKey(writeFile(t, "priv", string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})))); err == nil || !strings.Contains(err.Error(), "want PUBLIC KEY") {
		t.Errorf("a private key read as public: %v", err)
	}
	if _, err := LoadPrivateKey(writeFile(t, "junk", "hello")); err == nil {
		t.Error("junk read as a key")
	}
}

func TestClientPasswordFromEnvironment(t *testing.T) {
	env := func(k string) string {
		if k == PasswordEnv {
			return "S3cr3t"
		}
		return ""
	}
	if p, err := ClientPassword(env, os.Stdin, nil); err != nil || p != "S3cr3t" {
		t.Fatalf("%q %v", p, err)
	}
	devnull, _ := os.Open(os.DevNull)
	defer devnull.Close()
	if _, err := ClientPassword(func(string) string { return "" }, devnull, nil); err == nil || !strings.Contains(err.Error(), PasswordEnv) {
		t.Fatalf("no terminal, no variable: %v", err)
	}
}

// A token captured from the clear-text control channel is refused the
// second time within the skew window; a fresh token of the same user is
// not, and once the window has passed the cache forgets the old one
// (which the skew check then refuses anyway).
func TestReplayedTokenIsRefused(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	users := writeFile(t, "users.csv", "mario,"+PasswordHash("mario", "S3cr3t")+"\n")
	v := &Verifier{Key: testKey, UsersPath: users, Now: func() time.Time { return now }}
	tok, _ := Token(&testKey.PublicKey, "mario", "S3cr3t", now, false)
	if _, err := v.Check(client, tok); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Check(client, tok); !errors.Is(err, ErrReplayed) {
		t.Fatalf("replay: %v", err)
	}
	tok2, _ := Token(&testKey.PublicKey, "mario", "S3cr3t", now, false) // OAEP: another ciphertext
	if _, err := v.Check(client, tok2); err != nil {
		t.Fatalf("a fresh token: %v", err)
	}
	now = now.Add(11 * time.Second)
	if _, err := v.Check(client, tok); !errors.Is(err, ErrStale) {
		t.Fatalf("after the window: %v", err)
	}
	tok3, _ := Token(&testKey.PublicKey, "mario", "S3cr3t", now, false)
	if _, err := v.Check(client, tok3); err != nil {
		t.Fatal(err)
	}
	if n := len(v.seen); n != 1 {
		t.Errorf("%d tokens kept, want only the newest: the others' window has passed", n)
	}
}

// client is the address tests check tokens from.
var client = netip.MustParseAddr("2001:db8::1")

// The window closes on both edges: a token is accepted through the
// whole second its age equals the skew and remembered exactly that long,
// so no instant lets a captured token in twice (it was accepted three
// times at +10.1, +10.4 and +10.7 s when the cache forgot it at +10).
func TestReplayWindowEdges(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	users := writeFile(t, "users.csv", "mario,"+PasswordHash("mario", "S3cr3t")+"\n")
	for _, at := range []time.Duration{0, 9900 * time.Millisecond, 10100 * time.Millisecond, 10999 * time.Millisecond} {
		now := t0.Add(at)
		v := &Verifier{Key: testKey, UsersPath: users, Now: func() time.Time { return now }}
		tok, _ := Token(&testKey.PublicKey, "mario", "S3cr3t", t0, false)
		if _, err := v.Check(client, tok); err != nil {
			t.Fatalf("+%v: %v", at, err)
		}
		for step := at; step < 12*time.Second; step += 100 * time.Millisecond {
			now = t0.Add(step)
			if _, err := v.Check(client, tok); err == nil {
				t.Fatalf("accepted at +%v, then again at +%v", at, step)
			}
		}
	}
	now := t0.Add(11 * time.Second)
	v := &Verifier{Key: testKey, UsersPath: users, Now: func() time.Time { return now }}
	tok, _ := Token(&testKey.PublicKey, "mario", "S3cr3t", t0, false)
	if _, err := v.Check(client, tok); !errors.Is(err, ErrStale) {
		t.Fatalf("+11 s: %v", err)
	}
}

// Decryptions are rate-limited per address, per /64 and in all, before
// any RSA work; a refused check leaves the other budgets alone; budgets
// refill with time.
func TestCheckRateLimits(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	users := writeFile(t, "users.csv", "mario,"+PasswordHash("mario", "S3cr3t")+"\n")
	v := &Verifier{Key: testKey, UsersPath: users, Now: func() time.Time { return now }, Limits: Limits{PerAddr: 1, PerPrefix: 3, Global: 5, Burst: 2}}
	bad := base64.StdEncoding.EncodeToString(make([]byte, testKey.Size())) // decrypts to nothing valid
	busy := func(a string, n int) (refused int) {
		for range n {
			if _, err := v.Check(netip.MustParseAddr(a), bad); errors.Is(err, ErrBusy) {
				refused++
			} else if !errors.Is(err, ErrBadToken) {
				t.Fatalf("%s: %v", a, err)
			}
		}
		return refused
	}
	// Depths (Burst × rate): 2 per address, 6 per /64, 10 in all.
	if got := busy("2001:db8:1::1", 5); got != 3 {
		t.Errorf("one address, 5 checks: %d refused, want 3", got)
	}
	for i, want := range []int{0, 0, 0, 0, 1} { // the /64's 6, less the 2 above
		if got := busy(fmt.Sprintf("2001:db8:1::%d", i+2), 1); got != want {
			t.Errorf("2001:db8:1::%d: %d refused, want %d", i+2, got, want)
		}
	}
	for i, want := range []int{0, 0, 0, 0, 1} { // the global 10, less 6
		if got := busy(fmt.Sprintf("192.0.2.%d", i+1), 1); got != want {
			t.Errorf("192.0.2.%d: %d refused, want %d", i+1, got, want)
		}
	}
	now = now.Add(2 * time.Second) // 2 s refill 2 per address, 10 in all
	if got := busy("2001:db8:1::1", 3); got != 1 {
		t.Errorf("after 2 s: %d refused, want 1", got)
	}
}
