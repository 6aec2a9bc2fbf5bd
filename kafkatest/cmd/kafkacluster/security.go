package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rollsafe/rollsafe/kafkatest"
	"github.com/rollsafe/rollsafe/sim"
)

// The secured listeners' names (kafkatest.Listener.Name), as printed.
const (
	listenerTLS     = "TLS"      // SSL
	listenerSASL    = "SASL"     // SASL_PLAINTEXT
	listenerSASLTLS = "SASL_TLS" // SASL_SSL
)

// securityFlags are the flags that add secured listeners beside the
// plaintext one.
type securityFlags struct {
	tls       bool
	sasl      string // comma-separated mechanisms
	user      string // NAME:PASSWORD
	tokenLife time.Duration
}

func addSecurityFlags(fs *flag.FlagSet) *securityFlags {
	s := &securityFlags{}
	fs.BoolVar(&s.tls, "tls", false, "add a TLS listener (SSL; certificate for 127.0.0.1 and localhost from a CA written to DIR/ca.pem)")
	fs.StringVar(&s.sasl, "sasl", "", "add a SASL_PLAINTEXT listener (and with -tls a SASL_SSL one) with these mechanisms, comma separated: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER (Kafka's unsecured JWS validator; a token is written to DIR/token.jwt)")
	fs.StringVar(&s.user, "user", "kafka:kafka-secret", "NAME:PASSWORD of the PLAIN and SCRAM user")
	fs.DurationVar(&s.tokenLife, "token-life", 24*time.Hour, "lifetime of the OAUTHBEARER token written to DIR/token.jwt")
	return s
}

// mechanisms returns the -sasl mechanisms, upper-cased and checked.
func (s *securityFlags) mechanisms() ([]string, error) {
	if strings.TrimSpace(s.sasl) == "" {
		return nil, nil
	}
	var out []string
	for m := range strings.SplitSeq(s.sasl, ",") {
		m = strings.ToUpper(strings.TrimSpace(m))
		switch m {
		case kafkatest.MechanismPlain, kafkatest.MechanismScramSHA256, kafkatest.MechanismScramSHA512, kafkatest.MechanismOAuthBearer:
		default:
			return nil, fmt.Errorf("-sasl: unknown mechanism %q (want PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER)", m)
		}
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out, nil
}

// userPass splits -user.
func (s *securityFlags) userPass() (string, string, error) {
	u, p, ok := strings.Cut(s.user, ":")
	if !ok || u == "" || p == "" {
		return "", "", fmt.Errorf("-user: want NAME:PASSWORD, got %q", s.user)
	}
	return u, p, nil
}

// apply adds the listeners and users the flags ask for to cfg.
func (s *securityFlags) apply(cfg *kafkatest.Config) error {
	mechs, err := s.mechanisms()
	if err != nil {
		return err
	}
	if s.tokenLife <= 0 {
		return errors.New("-token-life must be positive")
	}
	if s.tls {
		cfg.Listeners = append(cfg.Listeners, kafkatest.Listener{Name: listenerTLS, Protocol: kafkatest.ProtocolSSL})
	}
	if len(mechs) == 0 {
		return nil
	}
	u, p, err := s.userPass()
	if err != nil {
		return err
	}
	cfg.Users = map[string]string{u: p}
	cfg.Listeners = append(cfg.Listeners, kafkatest.Listener{Name: listenerSASL, Protocol: kafkatest.ProtocolSASLPlaintext, Mechanisms: mechs})
	if s.tls {
		cfg.Listeners = append(cfg.Listeners, kafkatest.Listener{Name: listenerSASLTLS, Protocol: kafkatest.ProtocolSASLSSL, Mechanisms: mechs})
	}
	return nil
}

// describe writes the CA certificate and the OAUTHBEARER token into the
// cluster's directory and returns one line per secured listener:
//
//	NAME ADDR,ADDR,... security.protocol=P [sasl.mechanisms=M,...] [sasl.username=U sasl.password=W] [ssl.ca.location=FILE] [oauthbearer.token.file=FILE]
//
// (librdkafka's and the Java client's property names), and how-to lines
// for people.
func (s *securityFlags) describe(c *kafkatest.Cluster, listeners []kafkatest.Listener, now time.Time) (lines, howto []string, err error) {
	if len(listeners) == 0 {
		return nil, nil, nil
	}
	var caPath, tokenPath string
	if pem := c.CACertPEM(); pem != nil {
		caPath = filepath.Join(c.Dir(), "ca.pem")
		if err := os.WriteFile(caPath, pem, 0o644); err != nil {
			return nil, nil, fmt.Errorf("write the CA certificate: %w", err)
		}
	}
	user, pass, _ := s.userPass()
	for _, l := range listeners {
		if slices.Contains(l.Mechanisms, kafkatest.MechanismOAuthBearer) && tokenPath == "" {
			tokenPath = filepath.Join(c.Dir(), "token.jwt")
			tok := sim.UnsecuredJWT(user, now, now.Add(s.tokenLife), nil)
			if err := os.WriteFile(tokenPath, []byte(tok+"\n"), 0o600); err != nil {
				return nil, nil, fmt.Errorf("write the OAUTHBEARER token: %w", err)
			}
		}
	}
	for _, l := range listeners {
		addrs := strings.Join(c.ListenerAddrs(l.Name), ",")
		f := []string{l.Name, addrs, "security.protocol=" + l.Protocol}
		tlsFlag := ""
		if l.Protocol == kafkatest.ProtocolSSL || l.Protocol == kafkatest.ProtocolSASLSSL {
			f = append(f, "ssl.ca.location="+caPath)
			tlsFlag = " -tls-ca " + caPath
		}
		if len(l.Mechanisms) == 0 {
			lines = append(lines, strings.Join(f, " "))
			howto = append(howto, fmt.Sprintf("%s (%s): rollsafe produce -brokers %s%s -topic T", l.Name, l.Protocol, addrs, tlsFlag))
			continue
		}
		f = append(f, "sasl.mechanisms="+strings.Join(l.Mechanisms, ","))
		for _, m := range l.Mechanisms {
			if m != kafkatest.MechanismOAuthBearer {
				f = append(f, "sasl.username="+user, "sasl.password="+pass)
				break
			}
		}
		if slices.Contains(l.Mechanisms, kafkatest.MechanismOAuthBearer) {
			f = append(f, "oauthbearer.token.file="+tokenPath)
		}
		lines = append(lines, strings.Join(f, " "))
		for _, m := range l.Mechanisms {
			cmd := fmt.Sprintf("%s (%s %s): ", l.Name, l.Protocol, m)
			if m == kafkatest.MechanismOAuthBearer {
				cmd += fmt.Sprintf("rollsafe produce -brokers %s%s -sasl-mechanism OAUTHBEARER -sasl-oauth-token-file %s -topic T"+
					" (librdkafka: sasl.oauthbearer.config=principal=%s enable.sasl.oauthbearer.unsecure.jwt=true;"+
					" Java: OAuthBearerLoginModule required unsecuredLoginStringClaim_sub=%q)", addrs, tlsFlag, tokenPath, user, user)
			} else {
				cmd += fmt.Sprintf("ROLLSAFE_SASL_PASSWORD=%s rollsafe produce -brokers %s%s -sasl-mechanism %s -sasl-user %s -topic T", pass, addrs, tlsFlag, m, user)
			}
			howto = append(howto, cmd)
		}
	}
	return lines, howto, nil
}
