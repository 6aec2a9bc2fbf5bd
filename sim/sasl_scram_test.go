package sim

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

// TestScramRFC7677Vector checks the server's proof verification and
// signature against the SCRAM-SHA-256 example of RFC 7677, section 3.
func TestScramRFC7677Vector(t *testing.T) {
	b := newScramBackend(MechScramSHA256)
	salt, err := base64.StdEncoding.DecodeString("W22ZaJ0SNY7soEsUEjb6gQ==")
	if err != nil {
		t.Fatal(err)
	}
	cred, err := b.derive("pencil", salt, 4096)
	if err != nil {
		t.Fatal(err)
	}
	const nonce = "rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
	newEx := func() *scramExchange {
		return &scramExchange{
			b: b, stage: 1, gs2: "n,,", clientFirstBare: "n=user,r=rOprNGfwEbeRWgbNEkqO",
			serverFirst: "r=" + nonce + ",s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
			nonce:       nonce, user: "user", cred: cred,
		}
	}
	out, done, err := newEx().step([]byte("c=biws,r=" + nonce + ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="))
	if err != nil || !done {
		t.Fatalf("RFC 7677 client-final refused: %v", err)
	}
	if string(out) != "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=" {
		t.Fatalf("server-final %q", out)
	}
	// One bit off in the proof fails.
	_, done, err = newEx().step([]byte("c=biws,r=" + nonce + ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVU="))
	if !errors.Is(err, ErrAuthentication) || done {
		t.Fatalf("altered proof: done=%t err=%v", done, err)
	}
}

// TestScramMalformed: protocol violations fail the exchange with
// ErrAuthentication and never echo the user name.
func TestScramMalformed(t *testing.T) {
	b := newScramBackend(MechScramSHA512)
	cred, err := b.derive("pw", []byte("saltsaltsaltsalt"), 4096)
	if err != nil {
		t.Fatal(err)
	}
	b.users["carol"] = cred
	b.users["a,b=c"] = cred
	for _, first := range []string{
		"", "n", "n,,", "x,,n=carol,r=abc", "p=tls-unique,,n=carol,r=abc", "n,,m=ext,n=carol,r=abc",
		"n,,n=carol", "n,,r=abc,n=carol", "n,,n=,r=abc", "n,,n=carol,r=", "n,,n=carol,r=a,b",
		"n,,n=carol,r=a b", "n,,n=ca=rol,r=abc", "n,a=dave,n=carol,r=abc", "n,z,n=carol,r=abc",
		"n,,n=nobody,r=abc", "n,,n=a,b=c,r=abc", "n,,n=carol,r=abc,ext",
	} {
		ex := &scramExchange{b: b}
		_, _, err := ex.step([]byte(first))
		if !errors.Is(err, ErrAuthentication) {
			t.Fatalf("client-first %q: %v", first, err)
		}
		if strings.Contains(err.Error(), "carol") || strings.Contains(err.Error(), "nobody") {
			t.Fatalf("error %q names the user", err)
		}
		if _, _, err := ex.step([]byte("c=biws,r=x,p=AAAA")); !errors.Is(err, ErrAuthentication) {
			t.Fatalf("after a failure: %v", err)
		}
	}
	// Accepted first messages: escapes, "y" flag, matching authzid, extensions.
	for _, first := range []string{"n,,n=carol,r=abc", "y,,n=carol,r=abc", "n,a=carol,n=carol,r=abc", "n,,n=a=2Cb=3Dc,r=abc", "n,,n=carol,r=abc,tokenauth=true"} {
		ex := &scramExchange{b: b}
		out, done, err := ex.step([]byte(first))
		if err != nil || done || !strings.HasPrefix(string(out), "r=abc") || !strings.HasSuffix(string(out), ",i=4096") {
			t.Fatalf("client-first %q: %q %t %v", first, out, done, err)
		}
	}
	start := func() (*scramExchange, string) {
		ex := &scramExchange{b: b}
		out, _, err := ex.step([]byte("n,,n=carol,r=abc"))
		if err != nil {
			t.Fatal(err)
		}
		return ex, strings.TrimPrefix(strings.Split(string(out), ",")[0], "r=")
	}
	_, nonce := start()
	proof := base64.StdEncoding.EncodeToString(make([]byte, 64))
	for _, final := range []string{
		"", "c=biws,r=" + nonce, "c=eSws,r=" + nonce + ",p=" + proof, "r=" + nonce + ",c=biws,p=" + proof,
		"c=biws,r=abc,p=" + proof, "c=biws,r=" + nonce + "x,p=" + proof, "c=biws,r=" + nonce + ",p=***",
		"c=biws,r=" + nonce + ",p=AAAA", "c=biws,r=" + nonce + ",p=" + proof,
	} {
		ex, n := start()
		final = strings.ReplaceAll(final, nonce, n)
		if _, done, err := ex.step([]byte(final)); !errors.Is(err, ErrAuthentication) || done {
			t.Fatalf("client-final %q: done=%t %v", final, done, err)
		}
	}
	// librdkafka before 2.6.1 repeats its nonce in front of the server's:
	// Kafka accepts the nonce since it ends with the server's.
	ex, n := start()
	old := &scramClient{h: b.hash, user: "carol", pass: "pw", cnonce: "abc", bare: "n=carol,r=abc", repeatNonce: true}
	msg, err := old.next([]byte("r=" + n + ",s=" + base64.StdEncoding.EncodeToString([]byte("saltsaltsaltsalt")) + ",i=4096"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(msg), "c=biws,r=abc"+n+",") {
		t.Fatalf("client-final %q", msg)
	}
	if out, done, err := ex.step(msg); err != nil || !done || old.final(out) != nil {
		t.Fatalf("client-final with the nonce repeated: %q %t %v", out, done, err)
	}
	// A complete exchange refuses more messages.
	ex, n = start()
	cl := &scramClient{h: b.hash, user: "carol", pass: "pw", cnonce: "abc", bare: "n=carol,r=abc"}
	msg, err = cl.next([]byte("r=" + n + ",s=" + base64.StdEncoding.EncodeToString([]byte("saltsaltsaltsalt")) + ",i=4096"))
	if err != nil {
		t.Fatal(err)
	}
	out, done, err := ex.step(msg)
	if err != nil || !done || cl.final(out) != nil {
		t.Fatalf("exchange: %q %t %v", out, done, err)
	}
	if _, _, err := ex.step(msg); !errors.Is(err, ErrAuthentication) {
		t.Fatalf("after completion: %v", err)
	}
}

func TestPlainMalformed(t *testing.T) {
	a, err := newAuthenticator(secConfig{users: []saslUser{{MechPlain, "carol", "pw"}}})
	if err != nil {
		t.Fatal(err)
	}
	users := a.plain
	for _, msg := range []string{"", "carol", "\x00carol", "\x00carol\x00pw\x00", "\x00\x00pw", "dave\x00carol\x00pw", "\x00carol\x00PW", "\x00nobody\x00pw"} {
		p := &plainExchange{users: users}
		if _, done, err := p.step([]byte(msg)); !errors.Is(err, ErrAuthentication) || done || strings.Contains(err.Error(), "carol") {
			t.Fatalf("%q: done=%t %v", msg, done, err)
		}
	}
	for _, msg := range []string{"\x00carol\x00pw", "carol\x00carol\x00pw"} {
		p := &plainExchange{users: users}
		if _, done, err := p.step([]byte(msg)); err != nil || !done || p.principal() != "carol" {
			t.Fatalf("%q: done=%t %v", msg, done, err)
		}
		if _, _, err := p.step([]byte(msg)); !errors.Is(err, ErrAuthentication) {
			t.Fatalf("second message: %v", err)
		}
	}
}

// FuzzSASLExchange: arbitrary client messages never panic an exchange, and
// only the right credentials complete one.
func FuzzSASLExchange(f *testing.F) {
	f.Add([]byte("n,,n=carol,r=abc"), []byte("c=biws,r=abcXYZ,p=AAAA"))
	f.Add([]byte("y,a=carol,n=carol,r=a,x=1"), []byte("c=eSxhPWNhcm9sLA==,r=a,p="))
	f.Add([]byte("\x00carol\x00pw"), []byte{})
	f.Add([]byte("n,,n==,r=,"), []byte(",p=,p="))
	a, err := newAuthenticator(secConfig{users: []saslUser{
		{MechPlain, "carol", "pw"}, {MechScramSHA256, "carol", "pw"}, {MechScramSHA512, "carol", "pw"},
	}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, first, second []byte) {
		for _, mech := range allMechs {
			ex, err := a.newExchange(mech)
			if err != nil {
				t.Fatal(err)
			}
			_, done, err := ex.step(first)
			if done && (mech != MechPlain || string(first) != "\x00carol\x00pw" && string(first) != "carol\x00carol\x00pw") {
				t.Fatalf("%s: %q authenticated", mech, first)
			}
			if err != nil && !errors.Is(err, ErrAuthentication) {
				t.Fatalf("%s: untyped error %v", mech, err)
			}
			if err == nil && !done {
				if _, done, err := ex.step(second); done || (err != nil && !errors.Is(err, ErrAuthentication)) {
					t.Fatalf("%s: second message %q: done=%t %v", mech, second, done, err)
				}
			}
		}
	})
}
