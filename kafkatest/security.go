package kafkatest

import (
	"crypto/tls"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rollsafe/rollsafe/sim"
)

// Security protocols of a Listener (Kafka's security.protocol names).
const (
	ProtocolPlaintext     = "PLAINTEXT"
	ProtocolSSL           = "SSL"
	ProtocolSASLPlaintext = "SASL_PLAINTEXT"
	ProtocolSASLSSL       = "SASL_SSL"
)

// SASL mechanisms a Listener can enable.
const (
	MechanismPlain       = "PLAIN"
	MechanismScramSHA256 = "SCRAM-SHA-256"
	MechanismScramSHA512 = "SCRAM-SHA-512"
	MechanismOAuthBearer = "OAUTHBEARER"
)

// Listener is a client listener added beside the plaintext EXTERNAL one
// (which admin requests and the readiness probe keep using): its own port
// on every node, advertised through its own fault proxy, with TLS and/or
// SASL. Inter-broker and controller traffic stay plaintext.
//
// TLS listeners present a certificate for 127.0.0.1 and localhost signed
// by a CA the cluster generates at launch (Cluster.TLSConfig trusts it);
// the broker reads it as a PEM keystore (ssl.keystore.type=PEM).
//
// SASL users (Config.Users) are PLAIN users through the listener's JAAS
// config and SCRAM users added when storage is formatted (StorageTool
// --add-scram), for every SCRAM mechanism any listener enables.
// OAUTHBEARER uses Kafka's default server callback handler, the unsecured
// JWS validator (OAuthBearerUnsecuredValidatorCallbackHandler): a token
// is accepted when its header has "alg":"none", its signature is empty, it
// carries a string "sub" and a numeric "exp" in the future, and any "iat"
// is not in the future.
type Listener struct {
	// Name is the listener's name: upper-case letters, digits and '_';
	// not INTERNAL, EXTERNAL or CONTROLLER.
	Name string
	// Protocol is ProtocolSSL, ProtocolSASLPlaintext, ProtocolSASLSSL or
	// ProtocolPlaintext.
	Protocol string
	// Mechanisms are the SASL mechanisms enabled on a SASL listener.
	Mechanisms []string
	// MaxReauth is the listener's connections.max.reauth.ms (KIP-368): the
	// session lifetime the broker announces, after which a connection
	// must re-authenticate (for OAUTHBEARER the token's remaining
	// lifetime when shorter). Zero leaves it off.
	MaxReauth time.Duration
}

func (l Listener) tls() bool { return l.Protocol == ProtocolSSL || l.Protocol == ProtocolSASLSSL }
func (l Listener) sasl() bool {
	return l.Protocol == ProtocolSASLPlaintext || l.Protocol == ProtocolSASLSSL
}

// prefix is the broker property prefix of the listener's own settings.
func (l Listener) prefix() string { return "listener.name." + strings.ToLower(l.Name) + "." }

var (
	listenerNameRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	// userRE keeps user names and passwords inside what both the JAAS
	// config and StorageTool's --add-scram syntax take without quoting.
	userRE = regexp.MustCompile(`^[A-Za-z0-9._~@:+/-]+$`)
)

// validateSecurity checks cfg's listeners and users.
func validateSecurity(cfg Config) error {
	seen := map[string]bool{"INTERNAL": true, "EXTERNAL": true, "CONTROLLER": true}
	for _, l := range cfg.Listeners {
		if !listenerNameRE.MatchString(l.Name) {
			return fmt.Errorf("kafkatest: listener name %q: want upper-case letters, digits and '_'", l.Name)
		}
		if seen[l.Name] {
			return fmt.Errorf("kafkatest: listener name %q is taken", l.Name)
		}
		seen[l.Name] = true
		switch l.Protocol {
		case ProtocolPlaintext, ProtocolSSL:
			if len(l.Mechanisms) > 0 {
				return fmt.Errorf("kafkatest: listener %s: SASL mechanisms on a %s listener", l.Name, l.Protocol)
			}
		case ProtocolSASLPlaintext, ProtocolSASLSSL:
			if len(l.Mechanisms) == 0 {
				return fmt.Errorf("kafkatest: listener %s: %s without SASL mechanisms", l.Name, l.Protocol)
			}
		default:
			return fmt.Errorf("kafkatest: listener %s: unknown security protocol %q", l.Name, l.Protocol)
		}
		for _, m := range l.Mechanisms {
			switch m {
			case MechanismPlain, MechanismScramSHA256, MechanismScramSHA512, MechanismOAuthBearer:
			default:
				return fmt.Errorf("kafkatest: listener %s: unknown SASL mechanism %q", l.Name, m)
			}
		}
		if l.MaxReauth < 0 {
			return fmt.Errorf("kafkatest: listener %s: negative MaxReauth", l.Name)
		}
	}
	for u, p := range cfg.Users {
		if !userRE.MatchString(u) || !userRE.MatchString(p) {
			return fmt.Errorf("kafkatest: SASL user %q: names and passwords take letters, digits and ._~@:+/- only", u)
		}
	}
	return nil
}

// usesTLS reports whether any listener needs the cluster's certificate.
func usesTLS(ls []Listener) bool {
	return slices.ContainsFunc(ls, Listener.tls)
}

// scramMechanisms are the SCRAM mechanisms any listener enables.
func scramMechanisms(ls []Listener) []string {
	var out []string
	for _, l := range ls {
		for _, m := range l.Mechanisms {
			if strings.HasPrefix(m, "SCRAM-") && !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	slices.Sort(out)
	return out
}

// scramFormatArgs are StorageTool's --add-scram arguments: every user for
// every SCRAM mechanism enabled.
func scramFormatArgs(cfg Config) []string {
	var args []string
	for _, m := range scramMechanisms(cfg.Listeners) {
		for _, u := range sortedKeys(cfg.Users) {
			args = append(args, "--add-scram", fmt.Sprintf("%s=[name=%s,password=%s]", m, u, cfg.Users[u]))
		}
	}
	return args
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// OAuthBrokerPrincipal is the principal of the token a broker makes for
// itself at startup (its OAUTHBEARER login, unsecuredLoginStringClaim_sub).
const OAuthBrokerPrincipal = "kafkatest-broker"

// securityProps are the broker properties of the extra listeners;
// keystore is the PEM file holding the broker's key and certificate.
func securityProps(cfg Config, keystore string) map[string]string {
	props := map[string]string{}
	var mechs []string
	for _, l := range cfg.Listeners {
		p := l.prefix()
		if l.tls() {
			props[p+"ssl.keystore.type"] = "PEM"
			props[p+"ssl.keystore.location"] = keystore
			props[p+"ssl.client.auth"] = "none"
		}
		if !l.sasl() {
			continue
		}
		props[p+"sasl.enabled.mechanisms"] = strings.Join(l.Mechanisms, ",")
		if l.MaxReauth > 0 {
			props[p+"connections.max.reauth.ms"] = strconv.FormatInt(l.MaxReauth.Milliseconds(), 10)
		}
		for _, m := range l.Mechanisms {
			if !slices.Contains(mechs, m) {
				mechs = append(mechs, m)
			}
			mp := p + strings.ToLower(m) + ".sasl.jaas.config"
			switch m {
			case MechanismPlain:
				var b strings.Builder
				b.WriteString("org.apache.kafka.common.security.plain.PlainLoginModule required")
				for _, u := range sortedKeys(cfg.Users) {
					fmt.Fprintf(&b, " user_%s=%q", u, cfg.Users[u])
				}
				b.WriteString(";")
				props[mp] = b.String()
			case MechanismScramSHA256, MechanismScramSHA512:
				props[mp] = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
			case MechanismOAuthBearer:
				props[mp] = fmt.Sprintf("org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub=%q;", OAuthBrokerPrincipal)
			}
		}
	}
	if len(mechs) > 0 {
		// The broker-wide default is GSSAPI; every SASL listener sets its
		// own, this only keeps the default from naming Kerberos.
		props["sasl.enabled.mechanisms"] = strings.Join(mechs, ",")
	}
	return props
}

// writeKeystore writes the CA's server key and certificate as one PEM
// file (a PEM keystore) and returns its path.
func writeKeystore(dir string, ca *sim.TestCA) (string, error) {
	path := filepath.Join(dir, "keystore.pem")
	pem := append(append([]byte{}, ca.ServerKeyPEM...), ca.ServerCertPEM...)
	if err := os.WriteFile(path, pem, 0o600); err != nil {
		return "", fmt.Errorf("kafkatest: keystore: %w", err)
	}
	return path, nil
}

// TLSConfig returns a client TLS configuration that trusts the cluster's
// CA (and nothing else), or nil when no listener uses TLS.
func (c *Cluster) TLSConfig() *tls.Config {
	if c.ca == nil {
		return nil
	}
	return c.ca.ClientConfig()
}

// CACertPEM is the cluster's CA certificate, PEM encoded (nil without a
// TLS listener).
func (c *Cluster) CACertPEM() []byte {
	if c.ca == nil {
		return nil
	}
	return c.ca.CACertPEM
}

// ListenerAddrs are the bootstrap addresses of the extra listener called
// name: each node's proxy for it, in node id order (brokers advertise
// these on that listener). It panics on an unknown name.
func (c *Cluster) ListenerAddrs(name string) []string {
	i := c.listenerIndex(name)
	out := make([]string, len(c.nodes))
	for j, nd := range c.nodes {
		out[j] = nd.extra[i].proxy.Addr()
	}
	return out
}

// ListenerProxy is the fault proxy in front of node id's listener name.
func (c *Cluster) ListenerProxy(name string, id int32) *Proxy {
	return c.node(id).extra[c.listenerIndex(name)].proxy
}

// ListenerDirectAddr is node id's listener name without the proxy.
func (c *Cluster) ListenerDirectAddr(name string, id int32) string {
	return fmt.Sprintf("127.0.0.1:%d", c.node(id).extra[c.listenerIndex(name)].port)
}

func (c *Cluster) listenerIndex(name string) int {
	for i, l := range c.cfg.Listeners {
		if l.Name == name {
			return i
		}
	}
	panic(fmt.Sprintf("kafkatest: no listener %q", name))
}

// extraListener is one node's port and proxy for a Config.Listeners entry.
type extraListener struct {
	port  int
	proxy *Proxy
}
