package cli

import (
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tcptune/tcptune/internal/auth"
	"github.com/tcptune/tcptune/internal/flagx"
)

// authFlags are iperf3's authentication flags (internal/auth).
type authFlags struct {
	user, publicKey       string // client
	privateKey, usersPath string // server
	skew                  int
	pkcs1                 bool
}

func (a *authFlags) registerClient(fs *pflag.FlagSet) {
	fs.StringVar(&a.user, "username", "", "user name for a server that requires authentication (password from "+auth.PasswordEnv+" or a prompt)")
	fs.StringVar(&a.publicKey, "rsa-public-key-path", "", "the server's RSA public key (PEM), to encrypt the credentials")
}

func (a *authFlags) registerServer(fs *pflag.FlagSet) {
	fs.StringVar(&a.privateKey, "rsa-private-key-path", "", "RSA private key (PEM) to decrypt clients' credentials; requires --authorized-users-path")
	fs.StringVar(&a.usersPath, "authorized-users-path", "", "file of authorized users, lines of user,sha256(\"{user}password\") in hex")
	flagx.IntVarP(fs, &a.skew, "time-skew-threshold", "", 10, 1, 86400, "seconds", "largest difference between the client's and the server's clocks, in seconds")
}

func (a *authFlags) registerPadding(fs *pflag.FlagSet) {
	fs.BoolVar(&a.pkcs1, "use-pkcs1-padding", false, "PKCS#1 v1.5 padding for peers older than iperf3 3.17, at your own risk (CVE-2024-26306); default OAEP")
}

func (a *authFlags) credentials(cmd *cobra.Command) (*auth.Credentials, error) {
	return auth.NewCredentials(a.user, a.publicKey, a.pkcs1, func() (string, error) {
		return auth.ClientPassword(os.Getenv, os.Stdin, cmd.ErrOrStderr())
	})
}

func (a *authFlags) verifier() (*auth.Verifier, error) {
	return auth.NewVerifier(a.privateKey, a.usersPath, time.Duration(a.skew)*time.Second, a.pkcs1)
}
