// Package auth is iperf3's optional client authentication, compatible
// with its credentials and tokens: a client encrypts its user name,
// password and the time with the server's RSA public key; the server
// decrypts the token, checks the time against its skew threshold and
// the password's salted SHA-256 against a file of authorized users.
//
// The token's padding is OAEP (iperf3 3.17+, CVE-2024-26306) unless
// PKCS#1 v1.5 is asked for, as iperf3's --use-pkcs1-padding does for
// peers older than 3.17. The two are not interchangeable: both ends must
// use the same.
package auth

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultSkew is iperf3's default --time-skew-threshold.
const DefaultSkew = 10 * time.Second

// Why a token was refused. A client hears only iperf3's "test
// authorization failed" in every case; a server log may say which of
// these it was, never which of user and password was wrong.
var (
	ErrNoToken     = errors.New("no authentication token")
	ErrBadToken    = errors.New("the token cannot be decrypted with this key and padding")
	ErrStale       = errors.New("the token's time is outside the skew threshold")
	ErrReplayed    = errors.New("the token was used before (a replay of a captured token)")
	ErrBusy        = errors.New("too many logins from this address or in all; not checked (try again in a second)")
	ErrCredentials = errors.New("unknown user or wrong password")
)

// plaintext is iperf3's token text, "user: %s\npwd:  %s\nts:   %ld".
func plaintext(user, password string, ts int64) string {
	return "user: " + user + "\npwd:  " + password + "\nts:   " + strconv.FormatInt(ts, 10)
}

// parsePlaintext reads a token's text as iperf3's sscanf does: three
// labelled words, separated by any white space.
func parsePlaintext(s string) (user, password string, ts int64, ok bool) {
	f := strings.Fields(s)
	if len(f) != 6 || f[0] != "user:" || f[2] != "pwd:" || f[4] != "ts:" {
		return "", "", 0, false
	}
	ts, err := strconv.ParseInt(f[5], 10, 64)
	return f[1], f[3], ts, err == nil
}

// Token is the value of the "authtoken" parameter: the credentials and
// the time now, encrypted with key, in base64.
func Token(key *rsa.PublicKey, user, password string, now time.Time, pkcs1 bool) (string, error) {
	if err := checkCredential("user name", user); err != nil {
		return "", err
	}
	if err := checkCredential("password", password); err != nil {
		return "", err
	}
	msg := []byte(plaintext(user, password, now.Unix()))
	var ct []byte
	var err error
	if pkcs1 {
		ct, err = rsa.EncryptPKCS1v15(rand.Reader, key, msg)
	} else {
		// OpenSSL's RSA_PKCS1_OAEP_PADDING: SHA-1 and MGF1-SHA-1, no label.
		ct, err = rsa.EncryptOAEP(sha1.New(), rand.Reader, key, msg, nil)
	}
	if err != nil {
		return "", fmt.Errorf("encrypting the token: %w", err)
	}
	return base64.StdEncoding.EncodeToString(ct), nil
}

// Credentials are a client's: --username, the password, the server's
// public key (--rsa-public-key-path) and the padding.
type Credentials struct {
	User, Password string
	Key            *rsa.PublicKey
	PKCS1          bool
}

// Token is the credentials' token at now.
func (c *Credentials) Token(now time.Time) (string, error) {
	return Token(c.Key, c.User, c.Password, now, c.PKCS1)
}

// checkCredential refuses what iperf3's token cannot carry: its parser
// splits at white space.
func checkCredential(what, s string) error {
	if s == "" {
		return fmt.Errorf("empty %s", what)
	}
	if strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return fmt.Errorf("the %s contains white space or control characters, which iperf3's token cannot carry", what)
	}
	return nil
}

// PasswordHash is the authorized-users file's form of a password:
// hex(sha256("{user}password")).
func PasswordHash(user, password string) string {
	h := sha256.Sum256([]byte("{" + user + "}" + password))
	return hex.EncodeToString(h[:])
}

// Verifier checks tokens on a server.
type Verifier struct {
	Key *rsa.PrivateKey
	// UsersPath is the authorized-users file, read at every check as
	// iperf3 does, so that edits apply to the next test.
	UsersPath string
	Skew      time.Duration // 0 = DefaultSkew
	PKCS1     bool
	Now       func() time.Time // nil = time.Now
	// Limits bound the rate of checks (zero: DefaultLimits).
	Limits Limits

	// seen are the tokens accepted within the skew window: the control
	// channel is clear text, so a captured token could be sent again
	// while its time is still within the threshold. Each is kept until
	// its time leaves the window, at most maxSeen.
	mu   sync.Mutex
	seen map[[sha256.Size]byte]time.Time
	lim  *limiter
}

// maxSeen bounds the replay cache; only tokens that passed every other
// check enter it, so it fills only as fast as real logins come. A full
// cache refuses new tokens rather than forget one that still lives.
const maxSeen = 65536

// Check verifies a token sent from address from and returns the user it
// names. The token's time must lie within the skew of now, in whole
// seconds as iperf3 counts (an age of exactly the skew is accepted for
// that whole second), and a token is accepted once: it is remembered
// until the last instant its time would pass, so the window closes on
// both edges. Checks are rate-limited before any decryption (Limits).
func (v *Verifier) Check(from netip.Addr, token string) (string, error) {
	if token == "" {
		return "", ErrNoToken
	}
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	ct, err := base64.StdEncoding.DecodeString(token)
	if err != nil || len(ct) != v.Key.Size() {
		return "", ErrBadToken
	}
	if !v.limiter().allow(from, now()) {
		return "", ErrBusy
	}
	var msg []byte
	if v.PKCS1 {
		msg, err = rsa.DecryptPKCS1v15(nil, v.Key, ct)
	} else {
		msg, err = rsa.DecryptOAEP(sha1.New(), nil, v.Key, ct, nil)
	}
	if err != nil {
		return "", ErrBadToken
	}
	user, password, ts, ok := parsePlaintext(string(msg))
	if !ok {
		return "", ErrBadToken
	}
	skew := v.Skew
	if skew <= 0 {
		skew = DefaultSkew
	}
	// Accepted while the age in whole seconds is within the skew: from
	// ts − skew to the end of second ts + skew.
	from0, until := time.Unix(ts, 0).Add(-skew), time.Unix(ts, 0).Add(skew+time.Second)
	if t := now(); t.Before(from0) || !t.Before(until) {
		return user, ErrStale
	}
	users, err := LoadUsers(v.UsersPath)
	if err != nil {
		return user, err
	}
	// The hash is compared in constant time, and computed whether or not
	// the user exists.
	want, known := users[user]
	if !known {
		want = strings.Repeat("0", sha256.Size*2)
	}
	got := PasswordHash(user, password)
	if subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 || !known {
		return user, ErrCredentials
	}
	if !v.fresh(sha256.Sum256(ct), until, now()) {
		return user, ErrReplayed
	}
	return user, nil
}

func (v *Verifier) limiter() *limiter {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.lim == nil {
		l := v.Limits
		if l == (Limits{}) {
			l = DefaultLimits
		}
		v.lim = newLimiter(l)
	}
	return v.lim
}

// fresh records a token until expires and reports whether it is new.
func (v *Verifier) fresh(id [sha256.Size]byte, expires, now time.Time) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.seen == nil {
		v.seen = map[[sha256.Size]byte]time.Time{}
	}
	for k, exp := range v.seen {
		if !exp.After(now) {
			delete(v.seen, k)
		}
	}
	if _, ok := v.seen[id]; ok || len(v.seen) >= maxSeen {
		return false
	}
	v.seen[id] = expires
	return true
}

// LoadUsers reads an authorized-users file as iperf3 does: lines of
// "user,hash"; empty lines, lines starting with '#' and lines without a
// comma are skipped.
func LoadUsers(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("authorized users: %w", err)
	}
	users := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" || line[0] == '#' || !strings.Contains(line, ",") {
			continue
		}
		user, hash, _ := strings.Cut(line, ",")
		hash, _, _ = strings.Cut(hash, ",")
		if _, dup := users[user]; !dup {
			users[user] = strings.ToLower(hash)
		}
	}
	return users, nil
}

// LoadPublicKey reads a PEM RSA public key ("PUBLIC KEY", as openssl rsa
// -pubout writes it, or "RSA PUBLIC KEY").
func LoadPublicKey(path string) (*rsa.PublicKey, error) {
	blk, err := readPEM(path)
	if err != nil {
		return nil, err
	}
	switch blk.Type {
	case "PUBLIC KEY":
		k, err := x509.ParsePKIXPublicKey(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if rk, ok := k.(*rsa.PublicKey); ok {
			return rk, nil
		}
		return nil, fmt.Errorf("%s: not an RSA key", path)
	case "RSA PUBLIC KEY":
		k, err := x509.ParsePKCS1PublicKey(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return k, nil
	}
	return nil, fmt.Errorf("%s: a PEM %q block, want PUBLIC KEY", path, blk.Type)
}

// LoadPrivateKey reads a PEM RSA private key ("PRIVATE KEY" or "RSA
// PRIVATE KEY"; not encrypted).
func LoadPrivateKey(path string) (*rsa.PrivateKey, error) {
	blk, err := readPEM(path)
	if err != nil {
		return nil, err
	}
	switch blk.Type {
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if rk, ok := k.(*rsa.PrivateKey); ok {
			return rk, nil
		}
		return nil, fmt.Errorf("%s: not an RSA key", path)
	case "RSA PRIVATE KEY":
		k, err := x509.ParsePKCS1PrivateKey(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return k, nil
	}
	return nil, fmt.Errorf("%s: a PEM %q block, want PRIVATE KEY", path, blk.Type)
}

func readPEM(path string) (*pem.Block, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, fmt.Errorf("%s: no PEM block", path)
	}
	return blk, nil
}

// NewCredentials checks a client's --username and --rsa-public-key-path,
// loads the key, and then asks password for the password. With neither
// flag given it returns nil: no authentication.
func NewCredentials(user, keyPath string, pkcs1 bool, password func() (string, error)) (*Credentials, error) {
	if user == "" && keyPath == "" {
		return nil, nil
	}
	if user == "" || keyPath == "" {
		return nil, errors.New("--username and --rsa-public-key-path: give both, or neither")
	}
	key, err := LoadPublicKey(keyPath)
	if err != nil {
		return nil, fmt.Errorf("--rsa-public-key-path: %w", err)
	}
	pw, err := password()
	if err != nil {
		return nil, err
	}
	c := &Credentials{User: user, Password: pw, Key: key, PKCS1: pkcs1}
	if _, err := c.Token(time.Now()); err != nil { // a user or password a token cannot carry
		return nil, err
	}
	return c, nil
}

// NewVerifier checks a server's --rsa-private-key-path and
// --authorized-users-path, loads the key and reads the users once. With
// neither given it returns nil: every client is served.
func NewVerifier(keyPath, usersPath string, skew time.Duration, pkcs1 bool) (*Verifier, error) {
	if keyPath == "" && usersPath == "" {
		return nil, nil
	}
	if keyPath == "" || usersPath == "" {
		return nil, errors.New("--rsa-private-key-path and --authorized-users-path: give both, or neither")
	}
	key, err := LoadPrivateKey(keyPath)
	if err != nil {
		return nil, fmt.Errorf("--rsa-private-key-path: %w", err)
	}
	if _, err := LoadUsers(usersPath); err != nil {
		return nil, fmt.Errorf("--authorized-users-path: %w", err)
	}
	return &Verifier{Key: key, UsersPath: usersPath, Skew: skew, PKCS1: pkcs1}, nil
}
