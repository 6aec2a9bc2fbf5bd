package kafkatest

import (
	"strings"
	"testing"
)

// TestSecurityConfigValidation: a bad listener or user is refused before
// anything starts, naming what is wrong.
func TestSecurityConfigValidation(t *testing.T) {
	for name, tc := range map[string]struct {
		cfg  Config
		want string
	}{
		"lower-case name":      {Config{Listeners: []Listener{{Name: "tls", Protocol: ProtocolSSL}}}, "upper-case"},
		"reserved name":        {Config{Listeners: []Listener{{Name: "EXTERNAL", Protocol: ProtocolSSL}}}, "taken"},
		"twice":                {Config{Listeners: []Listener{{Name: "A", Protocol: ProtocolSSL}, {Name: "A", Protocol: ProtocolSSL}}}, "taken"},
		"unknown protocol":     {Config{Listeners: []Listener{{Name: "A", Protocol: "TLS"}}}, "unknown security protocol"},
		"SASL without mechs":   {Config{Listeners: []Listener{{Name: "A", Protocol: ProtocolSASLSSL}}}, "without SASL mechanisms"},
		"mechs without SASL":   {Config{Listeners: []Listener{{Name: "A", Protocol: ProtocolSSL, Mechanisms: []string{MechanismPlain}}}}, "SASL mechanisms on a SSL"},
		"unknown mechanism":    {Config{Listeners: []Listener{{Name: "A", Protocol: ProtocolSASLSSL, Mechanisms: []string{"GSSAPI"}}}}, "unknown SASL mechanism"},
		"password with quotes": {Config{Users: map[string]string{"u": `p"w`}}, "letters, digits"},
		"user with comma":      {Config{Users: map[string]string{"a,b": "p"}}, "letters, digits"},
	} {
		err := validateSecurity(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %q", name, err, tc.want)
		}
	}
	if err := validateSecurity(Config{Listeners: []Listener{{Name: "SASL_TLS", Protocol: ProtocolSASLSSL,
		Mechanisms: []string{MechanismPlain, MechanismScramSHA512, MechanismOAuthBearer}}}, Users: map[string]string{"alice": "s3cret"}}); err != nil {
		t.Fatal(err)
	}
}

// TestSecurityProps: the broker properties and StorageTool arguments of
// secured listeners.
func TestSecurityProps(t *testing.T) {
	cfg := Config{
		Listeners: []Listener{
			{Name: "TLS", Protocol: ProtocolSSL},
			{Name: "SASL_TLS", Protocol: ProtocolSASLSSL, Mechanisms: []string{MechanismPlain, MechanismScramSHA512, MechanismOAuthBearer}},
			{Name: "SASL_TCP", Protocol: ProtocolSASLPlaintext, Mechanisms: []string{MechanismScramSHA256}, MaxReauth: 5000000000},
		},
		Users: map[string]string{"bob": "b-pw", "alice": "a-pw"},
	}
	props := securityProps(cfg, "/k.pem")
	for k, v := range map[string]string{
		"listener.name.tls.ssl.keystore.type":                   "PEM",
		"listener.name.tls.ssl.keystore.location":               "/k.pem",
		"listener.name.sasl_tls.ssl.keystore.location":          "/k.pem",
		"listener.name.sasl_tls.sasl.enabled.mechanisms":        "PLAIN,SCRAM-SHA-512,OAUTHBEARER",
		"listener.name.sasl_tls.plain.sasl.jaas.config":         `org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="a-pw" user_bob="b-pw";`,
		"listener.name.sasl_tls.scram-sha-512.sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule required;",
		"listener.name.sasl_tls.oauthbearer.sasl.jaas.config":   `org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="kafkatest-broker";`,
		"listener.name.sasl_tcp.connections.max.reauth.ms":      "5000",
		"sasl.enabled.mechanisms":                               "PLAIN,SCRAM-SHA-512,OAUTHBEARER,SCRAM-SHA-256",
	} {
		if props[k] != v {
			t.Errorf("%s = %q, want %q", k, props[k], v)
		}
	}
	if _, ok := props["listener.name.sasl_tcp.ssl.keystore.location"]; ok {
		t.Error("a SASL_PLAINTEXT listener got a keystore")
	}
	args := strings.Join(scramFormatArgs(cfg), " ")
	want := "--add-scram SCRAM-SHA-256=[name=alice,password=a-pw] --add-scram SCRAM-SHA-256=[name=bob,password=b-pw] " +
		"--add-scram SCRAM-SHA-512=[name=alice,password=a-pw] --add-scram SCRAM-SHA-512=[name=bob,password=b-pw]"
	if args != want {
		t.Errorf("format args %q, want %q", args, want)
	}
	if len(securityProps(Config{}, "")) != 0 || len(scramFormatArgs(Config{Users: map[string]string{"a": "b"}})) != 0 {
		t.Error("a cluster without secured listeners gets security properties")
	}
}
