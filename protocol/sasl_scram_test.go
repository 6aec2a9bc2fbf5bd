package protocol

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestScramRFC7677Vector runs the SCRAM-SHA-256 example of RFC 7677
// section 3 with its fixed client nonce.
func TestScramRFC7677Vector(t *testing.T) {
	m := SASLScramSHA256("user", "pencil").(*scramMechanism)
	ex := &scramExchange{m: m, cnonce: "rOprNGfwEbeRWgbNEkqO"}
	first, done, err := ex.Step(nil)
	require.NoError(t, err)
	require.False(t, done)
	require.Equal(t, "n,,n=user,r=rOprNGfwEbeRWgbNEkqO", string(first))
	final, done, err := ex.Step([]byte("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"))
	require.NoError(t, err)
	require.False(t, done)
	require.Equal(t, "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", string(final))
	_, done, err = ex.Step([]byte("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="))
	require.NoError(t, err)
	require.True(t, done)
}

func TestScramRejectsBadServerMessages(t *testing.T) {
	const cn = "abc"
	good := "r=abcdef,s=" + base64.StdEncoding.EncodeToString([]byte("salt")) + ",i=4096"
	for name, serverFirst := range map[string]string{
		"nonce not extended":  "r=abc,s=c2FsdA==,i=4096",
		"nonce replaced":      "r=xyzdef,s=c2FsdA==,i=4096",
		"no salt":             "r=abcdef,i=4096",
		"bad salt":            "r=abcdef,s=!!,i=4096",
		"few iterations":      "r=abcdef,s=c2FsdA==,i=1",
		"huge iterations":     "r=abcdef,s=c2FsdA==,i=999999999",
		"no iterations":       "r=abcdef,s=c2FsdA==",
		"mandatory extension": "m=x," + good,
		"server error":        "e=other-error",
		"garbage":             "hello",
	} {
		ex := &scramExchange{m: SASLScramSHA512("u", "p").(*scramMechanism), cnonce: cn}
		_, _, err := ex.Step(nil)
		require.NoError(t, err)
		_, _, err = ex.Step([]byte(serverFirst))
		require.ErrorIs(t, err, errSCRAM, name)
	}
	ex := &scramExchange{m: SASLScramSHA512("u", "p").(*scramMechanism), cnonce: cn}
	_, _, _ = ex.Step(nil)
	_, _, err := ex.Step([]byte(good))
	require.NoError(t, err)
	for _, final := range []string{"v=" + base64.StdEncoding.EncodeToString([]byte("forged")), "v=!!", ""} {
		ex2 := *ex
		_, _, err := ex2.Step([]byte(final))
		require.Error(t, err, final)
	}
	ex3 := *ex
	_, _, err = ex3.Step([]byte("e=invalid-proof"))
	require.ErrorIs(t, err, errSCRAM)
	require.Contains(t, err.Error(), "invalid-proof")
}

func TestScramEscapesUserName(t *testing.T) {
	ex := &scramExchange{m: SASLScramSHA256("a=b,c", "p").(*scramMechanism), cnonce: "n"}
	first, _, err := ex.Step(nil)
	require.NoError(t, err)
	require.Equal(t, "n,,n=a=3Db=2Cc,r=n", string(first))
}

// scramFakeServer answers SCRAM with a valid server-first message and then
// a forged server-final signature: a server that does not know the
// password (or a man in the middle) must be detected.
func TestScramForgedServerSignature(t *testing.T) {
	f := newFakeBroker(t)
	f.handle = func(req kmsg.Request) kmsg.Response {
		switch r := req.(type) {
		case *kmsg.SASLHandshakeRequest:
			return r.ResponseKind()
		case *kmsg.SASLAuthenticateRequest:
			resp := r.ResponseKind().(*kmsg.SASLAuthenticateResponse)
			msg := string(r.SASLAuthBytes)
			if strings.HasPrefix(msg, "n,,") {
				i := strings.Index(msg, ",r=")
				resp.SASLAuthBytes = []byte("r=" + msg[i+3:] + "srv,s=c2FsdHNhbHQ=,i=4096")
			} else {
				resp.SASLAuthBytes = []byte("v=" + base64.StdEncoding.EncodeToString(make([]byte, 32)))
			}
			return resp
		}
		return nil
	}
	_, err := Dial(context.Background(), f.listen(), ConnConfig{Authenticate: SASL(SASLScramSHA256(testUser, testPass))})
	require.ErrorIs(t, err, ErrAuthentication)
	require.ErrorIs(t, err, ErrServerSignature)
	require.NotContains(t, err.Error(), testPass)
}
