package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/protocol"
)

// produceSASLPasswordEnv names the environment variable holding the SASL
// password: a flag would show it in process listings and shell history.
const produceSASLPasswordEnv = "ROLLSAFE_SASL_PASSWORD"

// securityFlags are the TLS and SASL flags of `rollsafe produce`.
type securityFlags struct {
	tlsCA, tlsCert, tlsKey string
	insecure               bool
	mechanism, user        string
	tokenFile              string
}

func addSecurityFlags(fs *flag.FlagSet) *securityFlags {
	s := &securityFlags{}
	fs.StringVar(&s.tlsCA, "tls-ca", "", "PEM file of the CA certificates to trust (enables TLS; default: system roots)")
	fs.StringVar(&s.tlsCert, "tls-cert", "", "PEM client certificate for mutual TLS (with -tls-key; enables TLS)")
	fs.StringVar(&s.tlsKey, "tls-key", "", "PEM private key of -tls-cert")
	fs.BoolVar(&s.insecure, "tls-insecure-skip-verify", false, "use TLS without verifying the broker certificate (testing only)")
	fs.StringVar(&s.mechanism, "sasl-mechanism", "", "PLAIN|SCRAM-SHA-256|SCRAM-SHA-512 (password from $"+produceSASLPasswordEnv+") or OAUTHBEARER (with -sasl-oauth-token-file)")
	fs.StringVar(&s.tokenFile, "sasl-oauth-token-file", "", "OAUTHBEARER: file holding the bearer token, read again at every authentication (rewrite it to rotate the token)")
	fs.StringVar(&s.user, "sasl-user", "", "SASL user name (with -sasl-mechanism)")
	return s
}

// options turns the flags into producer options. lookupEnv reads the
// password. Errors never hold the password.
func (s *securityFlags) options(lookupEnv func(string) (string, bool)) ([]client.Option, error) {
	var opts []client.Option
	tc, err := s.tlsConfig()
	if err != nil {
		return nil, err
	}
	if tc != nil {
		opts = append(opts, client.WithTLS(tc))
	}
	if s.mechanism == "" {
		if s.user != "" || s.tokenFile != "" {
			return nil, errors.New("-sasl-user and -sasl-oauth-token-file need -sasl-mechanism")
		}
		return opts, nil
	}
	if strings.EqualFold(s.mechanism, protocol.MechanismOAuthBearer) {
		if s.tokenFile == "" || s.user != "" {
			return nil, errors.New("-sasl-mechanism OAUTHBEARER needs -sasl-oauth-token-file (and no -sasl-user)")
		}
		return append(opts, client.SASLOAuthBearer(fileToken(s.tokenFile))), nil
	}
	if s.tokenFile != "" {
		return nil, errors.New("-sasl-oauth-token-file needs -sasl-mechanism OAUTHBEARER")
	}
	if s.user == "" {
		return nil, errors.New("-sasl-mechanism needs -sasl-user")
	}
	pass, ok := lookupEnv(produceSASLPasswordEnv)
	if !ok {
		return nil, fmt.Errorf("-sasl-mechanism needs the password in $%s", produceSASLPasswordEnv)
	}
	m, err := protocol.NewSASLMechanism(s.mechanism, s.user, pass)
	if err != nil {
		return nil, fmt.Errorf("-sasl-mechanism: %w", err)
	}
	return append(opts, client.WithSASL(m)), nil
}

// tlsConfig returns nil when no TLS flag is set.
func (s *securityFlags) tlsConfig() (*tls.Config, error) {
	if s.tlsCA == "" && s.tlsCert == "" && s.tlsKey == "" && !s.insecure {
		return nil, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: s.insecure} //nolint:gosec // opt-in flag
	if s.tlsCA != "" {
		pem, err := os.ReadFile(s.tlsCA)
		if err != nil {
			return nil, fmt.Errorf("-tls-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("-tls-ca: no PEM certificate in %s", s.tlsCA)
		}
		tc.RootCAs = pool
	}
	if (s.tlsCert == "") != (s.tlsKey == "") {
		return nil, errors.New("-tls-cert and -tls-key go together")
	}
	if s.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(s.tlsCert, s.tlsKey)
		if err != nil {
			return nil, fmt.Errorf("-tls-cert/-tls-key: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// fileToken provides the token in path, read at every authentication
// (its expiry unknown, so never cached). Its errors never hold the token.
func fileToken(path string) func(context.Context) (client.OAuthBearerToken, error) {
	return func(context.Context) (client.OAuthBearerToken, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return client.OAuthBearerToken{}, fmt.Errorf("-sasl-oauth-token-file: %w", err)
		}
		return client.OAuthBearerToken{Value: strings.TrimSpace(string(b))}, nil
	}
}
