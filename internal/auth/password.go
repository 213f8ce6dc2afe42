package auth

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// PasswordEnv is where iperf3 (3.7+) and tcptune read a client's
// password before asking for it.
const PasswordEnv = "IPERF3_PASSWORD"

// ClientPassword is the password for --username: IPERF3_PASSWORD if
// set, else a line read from the terminal in without echo, after a
// prompt on out.
func ClientPassword(getenv func(string) string, in *os.File, out io.Writer) (string, error) {
	if p := getenv(PasswordEnv); p != "" {
		return p, nil
	}
	if !term.IsTerminal(int(in.Fd())) {
		return "", errors.New("no password: set " + PasswordEnv + " or run on a terminal")
	}
	fmt.Fprint(out, "Password: ")
	b, err := term.ReadPassword(int(in.Fd()))
	fmt.Fprintln(out)
	if err != nil {
		return "", fmt.Errorf("reading the password: %w", err)
	}
	return firstLine(string(b)), nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimRight(line, "\r")
}
