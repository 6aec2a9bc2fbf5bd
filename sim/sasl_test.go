package sim

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

var allMechs = []string{MechPlain, MechScramSHA256, MechScramSHA512}

// saslUsers configures user "alice" (password "pw-<mech>") and "bob,=x"
// (a name needing SCRAM escapes) for every mechanism.
func saslUsers() []Option {
	var opts []Option
	for _, m := range allMechs {
		opts = append(opts, SASL(m, "alice", "pw-"+m), SASL(m, "bob,=x", "bob-secret-"+m))
	}
	return opts
}

func apiVersionsReq() *kmsg.ApiVersionsRequest {
	req := kmsg.NewPtrApiVersionsRequest()
	req.SetVersion(3)
	req.ClientSoftwareName, req.ClientSoftwareVersion = "simtest", "1"
	return req
}

// TestSASLMechanisms: every mechanism, over plain TCP and TLS, with every
// SaslAuthenticate version, authenticates and then serves requests.
func TestSASLMechanisms(t *testing.T) {
	ca, err := NewTestCA()
	if err != nil {
		t.Fatal(err)
	}
	for _, useTLS := range []bool{false, true} {
		opts := append(saslUsers(), Brokers(1), Topic("t", 1, 1))
		if useTLS {
			opts = append(opts, TLS(ca.ServerConfig()))
		}
		c := newTestCluster(t, opts...)
		open := func() *testConn {
			if useTLS {
				return dialTLS(t, c.Addrs()[0], ca.ClientConfig())
			}
			return dial(t, c.Addrs()[0])
		}
		for _, mech := range allMechs {
			for v := int16(0); v <= 2; v++ {
				for _, user := range []string{"alice", "bob,=x"} {
					tc := open()
					av := tc.do(apiVersionsReq()).(*kmsg.ApiVersionsResponse)
					if !hasKey(av, 17, 0, 1) || !hasKey(av, 36, 0, 2) {
						t.Fatalf("ApiVersions lacks SaslHandshake v0-1 / SaslAuthenticate v0-2: %+v", av.ApiKeys)
					}
					hs := tc.handshake(mech)
					if hs.ErrorCode != 0 || !slices.Equal(hs.SupportedMechanisms, allMechs) {
						t.Fatalf("handshake %s: code %d, mechanisms %v", mech, hs.ErrorCode, hs.SupportedMechanisms)
					}
					pass := "pw-" + mech
					if user != "alice" {
						pass = "bob-secret-" + mech
					}
					cl := newTestClient(mech, user, pass)
					resp := tc.saslAuth(v, cl.first())
					if mech != MechPlain {
						if resp.ErrorCode != 0 {
							t.Fatalf("tls=%t %s v%d client-first: code %d", useTLS, mech, v, resp.ErrorCode)
						}
						msg, err := cl.next(resp.SASLAuthBytes)
						if err != nil {
							t.Fatal(err)
						}
						resp = tc.saslAuth(v, msg)
					}
					if resp.ErrorCode != 0 || resp.SessionLifetimeMillis != 0 {
						t.Fatalf("tls=%t %s v%d: code %d, lifetime %d", useTLS, mech, v, resp.ErrorCode, resp.SessionLifetimeMillis)
					}
					if err := cl.final(resp.SASLAuthBytes); err != nil {
						t.Fatalf("tls=%t %s v%d: %v", useTLS, mech, v, err)
					}
					md := tc.do(metadataAll()).(*kmsg.MetadataResponse)
					if len(md.Topics) != 1 {
						t.Fatalf("metadata after login: %d topics", len(md.Topics))
					}
					// Authenticated: a second SaslAuthenticate is refused,
					// without re-authentication a SaslHandshake too, and
					// the connection stays usable.
					if r := tc.saslAuth(v, cl.first()); r.ErrorCode != errIllegalSaslState {
						t.Fatalf("SaslAuthenticate after login: code %d", r.ErrorCode)
					}
					if r := tc.handshake(mech); r.ErrorCode != errIllegalSaslState {
						t.Fatalf("SaslHandshake after login without lifetime: code %d", r.ErrorCode)
					}
					tc.do(metadataAll())
				}
			}
		}
	}
}

func hasKey(av *kmsg.ApiVersionsResponse, key, lo, hi int16) bool {
	for _, k := range av.ApiKeys {
		if k.ApiKey == key {
			return k.MinVersion == lo && k.MaxVersion == hi
		}
	}
	return false
}

// TestSASLWrongPassword: a wrong password (or unknown user) is answered
// SASL_AUTHENTICATION_FAILED with a message naming the mechanism only, and
// the connection is then closed.
func TestSASLWrongPassword(t *testing.T) {
	c := newTestCluster(t, append(saslUsers(), Brokers(1), Topic("t", 1, 1))...)
	for _, mech := range allMechs {
		for _, bad := range [][2]string{{"alice", "wrong-password"}, {"mallory", "pw-" + mech}, {"alice", ""}} {
			tc := dial(t, c.Addrs()[0])
			resp := tc.login(2, mech, bad[0], bad[1])
			if resp.ErrorCode != errSaslAuthenticationFailed {
				t.Fatalf("%s %q: code %d, want 58", mech, bad[0], resp.ErrorCode)
			}
			msg := deref(resp.ErrorMessage)
			if !strings.Contains(msg, mech) || strings.Contains(msg, bad[0]) || (bad[1] != "" && strings.Contains(msg, bad[1])) {
				t.Fatalf("%s: error message %q", mech, msg)
			}
			if len(resp.SASLAuthBytes) != 0 {
				t.Fatalf("%s: failure carries %q", mech, resp.SASLAuthBytes)
			}
			tc.expectClosed()
		}
	}
}

// TestSASLUnsupportedMechanism: a mechanism not enabled gets
// UNSUPPORTED_SASL_MECHANISM with the enabled ones, then the connection
// closes.
func TestSASLUnsupportedMechanism(t *testing.T) {
	c := newTestCluster(t, Brokers(1), SASL(MechScramSHA512, "alice", "pw"), SASL(MechPlain, "alice", "pw"))
	for _, mech := range []string{"GSSAPI", MechScramSHA256, "plain", ""} {
		tc := dial(t, c.Addrs()[0])
		tc.do(apiVersionsReq())
		hs := tc.handshake(mech)
		if hs.ErrorCode != errUnsupportedSaslMechanism || !slices.Equal(hs.SupportedMechanisms, []string{MechScramSHA512, MechPlain}) {
			t.Fatalf("%q: code %d, mechanisms %v", mech, hs.ErrorCode, hs.SupportedMechanisms)
		}
		tc.expectClosed()
	}
}

// TestSASLRequestBeforeAuth: anything but ApiVersions and SaslHandshake
// before authentication closes the connection unanswered, as does anything
// but SaslAuthenticate between the handshake and the end of the exchange.
func TestSASLRequestBeforeAuth(t *testing.T) {
	c := newTestCluster(t, Brokers(1), Topic("t", 1, 1), SASL(MechScramSHA256, "alice", "pw"))
	addr := c.Addrs()[0]

	dial(t, addr).expectNoAnswer(metadataAll())

	tc := dial(t, addr)
	tc.do(apiVersionsReq())
	tc.expectNoAnswer(produceReq("t", 0, -1, makeBatch(t, spec{pid: -1, epoch: -1, seq: -1, values: vals("x", 1)})))

	tc = dial(t, addr)
	tc.do(apiVersionsReq())
	tc.expectNoAnswer(kmsg.NewPtrSASLAuthenticateRequest()) // no handshake yet

	tc = dial(t, addr)
	if hs := tc.handshake(MechScramSHA256); hs.ErrorCode != 0 {
		t.Fatalf("handshake: %d", hs.ErrorCode)
	}
	tc.expectNoAnswer(metadataAll())

	tc = dial(t, addr)
	tc.handshake(MechScramSHA256)
	tc.saslAuth(1, newTestClient(MechScramSHA256, "alice", "pw").first())
	tc.expectNoAnswer(apiVersionsReq()) // mid-exchange

	tc = dial(t, addr)
	tc.handshake(MechScramSHA256)
	again := kmsg.NewPtrSASLHandshakeRequest()
	again.SetVersion(1)
	again.Mechanism = MechScramSHA256
	tc.expectNoAnswer(again) // a second handshake

	var closed int
	for _, e := range c.Recorder().Exchanges() {
		if e.Outcome == actClose.String() {
			closed++
		}
	}
	if closed != 6 {
		t.Fatalf("%d exchanges recorded as closing, want 6", closed)
	}
}

// TestSASLOffCluster: without SASL, SASL requests get ILLEGAL_SASL_STATE
// and the connection stays usable.
func TestSASLOffCluster(t *testing.T) {
	c := newTestCluster(t, Brokers(1), Topic("t", 1, 1))
	tc := dial(t, c.Addrs()[0])
	if hs := tc.handshake(MechPlain); hs.ErrorCode != errIllegalSaslState {
		t.Fatalf("handshake: %d", hs.ErrorCode)
	}
	if r := tc.saslAuth(2, []byte("\x00a\x00b")); r.ErrorCode != errIllegalSaslState {
		t.Fatalf("authenticate: %d", r.ErrorCode)
	}
	tc.do(metadataAll())
}

// TestSASLSessionLifetime: SaslAuthenticate v1+ announces the lifetime;
// after it the next request closes the connection, unless the client
// re-authenticated on it in time.
func TestSASLSessionLifetime(t *testing.T) {
	clk := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	c := newTestCluster(t, Brokers(1), Topic("t", 1, 1), withClock(clk), SessionLifetime(time.Minute),
		SASL(MechScramSHA512, "alice", "pw"), SASL(MechScramSHA512, "bob", "pw2"), SASL(MechPlain, "alice", "pw"))
	addr := c.Addrs()[0]

	t.Run("expires", func(t *testing.T) {
		for v := int16(0); v <= 2; v++ {
			tc := dial(t, addr)
			resp := tc.mustLogin(v, MechScramSHA512, "alice", "pw")
			want := int64(60_000)
			if v == 0 {
				want = 0 // not in v0
			}
			if resp.SessionLifetimeMillis != want {
				t.Fatalf("v%d: lifetime %d, want %d", v, resp.SessionLifetimeMillis, want)
			}
			clk.Advance(59 * time.Second)
			tc.do(metadataAll())
			clk.Advance(time.Second)
			tc.expectNoAnswer(metadataAll()) // v0 clients are cut too
		}
	})
	t.Run("reauthenticated", func(t *testing.T) {
		c.Recorder().Reset()
		began := clk.Now()
		tc := dial(t, addr)
		tc.mustLogin(2, MechScramSHA512, "alice", "pw")
		clk.Advance(50 * time.Second)
		tc.do(metadataAll())
		if r := tc.mustLogin(2, MechScramSHA512, "alice", "pw"); r.SessionLifetimeMillis != 60_000 {
			t.Fatalf("re-authentication lifetime %d", r.SessionLifetimeMillis)
		}
		clk.Advance(50 * time.Second) // past the first session, inside the second
		tc.do(metadataAll())
		clk.Advance(10 * time.Second)
		// An expired session can still re-authenticate: the handshake
		// starts it (as in Kafka); anything else closes.
		tc.mustLogin(1, MechScramSHA512, "alice", "pw")
		tc.do(metadataAll())
		clk.Advance(time.Minute)
		tc.expectNoAnswer(metadataAll())
		// The Recorder keeps the connection's three authentications.
		as := c.Recorder().Authentications()
		if len(as) != 3 {
			t.Fatalf("%d authentications recorded, want 3: %+v", len(as), as)
		}
		for i, a := range as {
			at := began.Add(time.Duration(i) * 50 * time.Second)
			if i == 2 {
				at = began.Add(110 * time.Second)
			}
			if a.Conn != as[0].Conn || a.Broker != 0 || a.Reauth != (i > 0) || !a.Time.Equal(at) ||
				a.Lifetime != time.Minute || a.Principal != "alice" || a.Mechanism != MechScramSHA512 {
				t.Fatalf("authentication %d: %+v", i, a)
			}
		}
	})
	t.Run("other principal", func(t *testing.T) {
		tc := dial(t, addr)
		tc.mustLogin(2, MechScramSHA512, "alice", "pw")
		if r := tc.login(2, MechScramSHA512, "bob", "pw2"); r.ErrorCode != errSaslAuthenticationFailed {
			t.Fatalf("re-authentication as another user: code %d", r.ErrorCode)
		}
		tc.expectClosed()
	})
	t.Run("other mechanism", func(t *testing.T) {
		tc := dial(t, addr)
		tc.mustLogin(2, MechScramSHA512, "alice", "pw")
		if hs := tc.handshake(MechPlain); hs.ErrorCode != errIllegalSaslState {
			t.Fatalf("re-authentication with another mechanism: code %d", hs.ErrorCode)
		}
		tc.expectClosed()
	})
	t.Run("wrong password on reauth", func(t *testing.T) {
		tc := dial(t, addr)
		tc.mustLogin(2, MechPlain, "alice", "pw")
		if r := tc.login(2, MechPlain, "alice", "nope"); r.ErrorCode != errSaslAuthenticationFailed {
			t.Fatalf("code %d", r.ErrorCode)
		}
		tc.expectClosed()
	})
}

// TestSASLSessionLifetimeRealClock: the same on the wall clock.
func TestSASLSessionLifetimeRealClock(t *testing.T) {
	const life = 150 * time.Millisecond
	c := newTestCluster(t, Brokers(1), SessionLifetime(life), SASL(MechPlain, "alice", "pw"))
	tc := dial(t, c.Addrs()[0])
	start := time.Now()
	if r := tc.mustLogin(1, MechPlain, "alice", "pw"); r.SessionLifetimeMillis != 150 {
		t.Fatalf("lifetime %d", r.SessionLifetimeMillis)
	}
	time.Sleep(life - time.Since(start) + 20*time.Millisecond) // the lifetime must pass: no event to wait on
	tc.expectNoAnswer(metadataAll())
}

func TestSASLBadConfig(t *testing.T) {
	ca, err := NewTestCA()
	if err != nil {
		t.Fatal(err)
	}
	const secret = "s3cr3t-password"
	for name, opts := range map[string][]Option{
		"mechanism":          {SASL("GSSAPI", "alice", secret)},
		"empty user":         {SASL(MechPlain, "", secret)},
		"duplicate plain":    {SASL(MechPlain, "alice", secret), SASL(MechPlain, "alice", secret)},
		"duplicate scram":    {SASL(MechScramSHA256, "alice", secret), SASL(MechScramSHA256, "alice", "x")},
		"lifetime w/o sasl":  {SessionLifetime(time.Second)},
		"negative lifetime":  {SASL(MechPlain, "alice", secret), SessionLifetime(-time.Second)},
		"sub-ms lifetime":    {SASL(MechPlain, "alice", secret), SessionLifetime(time.Microsecond)},
		"tls without a cert": {TLS(ca.ClientConfig())},
	} {
		c, err := NewCluster(opts...)
		if err == nil {
			_ = c.Close()
			t.Fatalf("%s: no error", name)
		}
		if !errors.Is(err, ErrBadConfig) || strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "alice") {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// The same user under two mechanisms is fine.
	c, err := NewCluster(SASL(MechPlain, "alice", secret), SASL(MechScramSHA256, "alice", secret), TLS(nil))
	if err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
}
