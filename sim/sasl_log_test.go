package sim

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestSASLCredentialsNotLogged: successful and failed logins, over TLS,
// leave no user name or password in the log, the recorder's exchanges or
// its dump.
func TestSASLCredentialsNotLogged(t *testing.T) {
	ca, err := NewTestCA()
	if err != nil {
		t.Fatal(err)
	}
	capture := newCapture()
	const user, wrongUser = "user-Zq81", "intruder-Kx4"
	secrets := map[string]string{
		MechPlain: "plain-pw-R7u2", MechScramSHA256: "s256-pw-Tg3x", MechScramSHA512: "s512-pw-Mv9c",
	}
	opts := []Option{Brokers(1), Topic("t", 1, 1), TLS(ca.ServerConfig()), SessionLifetime(time.Hour),
		Logger(slog.New(capture))}
	for _, m := range allMechs {
		opts = append(opts, SASL(m, user, secrets[m]))
	}
	c := newTestCluster(t, opts...)
	addr := c.Addrs()[0]
	for _, m := range allMechs {
		tc := dialTLS(t, addr, ca.ClientConfig())
		tc.mustLogin(2, m, user, secrets[m])
		tc.mustLogin(1, m, user, secrets[m]) // re-authentication
		tc.do(metadataAll())

		tc = dialTLS(t, addr, ca.ClientConfig())
		if r := tc.login(2, m, user, "bad-"+secrets[m]); r.ErrorCode != errSaslAuthenticationFailed {
			t.Fatalf("%s wrong password: %d", m, r.ErrorCode)
		}
		tc = dialTLS(t, addr, ca.ClientConfig())
		if r := tc.login(0, m, wrongUser, secrets[m]); r.ErrorCode != errSaslAuthenticationFailed {
			t.Fatalf("%s unknown user: %d", m, r.ErrorCode)
		}
	}
	dialTLS(t, addr, ca.ClientConfig()).expectNoAnswer(metadataAll())
	var dump strings.Builder
	if err := c.Recorder().Dump(&dump); err != nil {
		t.Fatal(err)
	}
	logs := capture.String()
	for _, want := range []string{"SASL authenticated", "SASL authentication failed", "request before SASL authentication"} {
		if !strings.Contains(logs, want) {
			t.Fatalf("log lacks %q:\n%s", want, logs)
		}
	}
	texts := map[string]string{"log": logs, "dump": dump.String()}
	for _, e := range c.Recorder().Exchanges() {
		if r, ok := e.Request.(*kmsg.SASLAuthenticateRequest); ok && r.SASLAuthBytes != nil {
			t.Fatalf("recorded SaslAuthenticate request keeps %d auth bytes", len(r.SASLAuthBytes))
		}
		if r, ok := e.Response.(*kmsg.SASLAuthenticateResponse); ok {
			if r.SASLAuthBytes != nil {
				t.Fatalf("recorded SaslAuthenticate response keeps %d auth bytes", len(r.SASLAuthBytes))
			}
			texts["error message"] += deref(r.ErrorMessage)
		}
	}
	for where, text := range texts {
		for _, s := range append([]string{user, wrongUser}, secrets[MechPlain], secrets[MechScramSHA256], secrets[MechScramSHA512]) {
			if strings.Contains(text, s) {
				t.Fatalf("%s contains %q:\n%s", where, s, text)
			}
		}
	}
}
