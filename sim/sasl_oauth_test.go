package sim

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestOAuthFirstMessageGrammar(t *testing.T) {
	now := time.Now()
	tok := UnsecuredJWT("alice", now, now.Add(time.Hour), nil)
	for name, tc := range map[string]struct {
		msg   string
		ok    bool
		authz string
		ext   map[string]string
	}{
		"plain":         {msg: "n,,\x01auth=Bearer " + tok + "\x01\x01", ok: true, ext: map[string]string{}},
		"authzid":       {msg: "n,a=alice,\x01auth=Bearer " + tok + "\x01\x01", ok: true, authz: "alice", ext: map[string]string{}},
		"extensions":    {msg: "n,,\x01auth=Bearer " + tok + "\x01traceId=a b\x01x=1\x01\x01", ok: true, ext: map[string]string{"traceId": "a b", "x": "1"}},
		"scheme case":   {msg: "n,,\x01auth=bEaReR " + tok + "\x01\x01", ok: true, ext: map[string]string{}},
		"no auth":       {msg: "n,,\x01x=1\x01\x01"},
		"other scheme":  {msg: "n,,\x01auth=Basic " + tok + "\x01\x01"},
		"no gs2 header": {msg: "\x01auth=Bearer " + tok + "\x01\x01"},
		"no final 0x01": {msg: "n,,\x01auth=Bearer " + tok + "\x01"},
		"bad ext key":   {msg: "n,,\x01auth=Bearer " + tok + "\x01k1=v\x01\x01"},
		"empty":         {msg: ""},
	} {
		got, authz, ext, err := parseOAuthFirst([]byte(tc.msg))
		if !tc.ok {
			require.Error(t, err, name)
			continue
		}
		require.NoError(t, err, name)
		require.Equal(t, tok, got, name)
		require.Equal(t, tc.authz, authz, name)
		require.Equal(t, tc.ext, ext, name)
	}
}

func TestOAuthExchangeRejectsThenFails(t *testing.T) {
	now := time.Now()
	ex := &oauthExchange{now: time.Now}
	out, done, err := ex.step([]byte("n,,\x01auth=Bearer " + UnsecuredJWT("alice", now.Add(-2*time.Hour), now.Add(-time.Hour), nil) + "\x01\x01"))
	require.NoError(t, err)
	require.False(t, done)
	require.JSONEq(t, `{"status":"invalid_token"}`, string(out))
	_, _, err = ex.step([]byte{0x01})
	require.ErrorIs(t, err, ErrAuthentication)
	var cm interface{ clientMessage() string }
	require.True(t, errors.As(err, &cm))
	require.Equal(t, `{"status":"invalid_token"}`, cm.clientMessage())

	ex = &oauthExchange{now: time.Now}
	_, done, err = ex.step([]byte("n,a=bob,\x01auth=Bearer " + UnsecuredJWT("alice", now, now.Add(time.Hour), nil) + "\x01\x01"))
	require.ErrorIs(t, err, ErrAuthentication, "authzid must equal the token's principal")
	require.False(t, done)

	ex = &oauthExchange{now: time.Now}
	_, done, err = ex.step([]byte("n,,\x01auth=Bearer " + UnsecuredJWT("alice", now, now.Add(time.Hour), nil) + "\x01\x01"))
	require.NoError(t, err)
	require.True(t, done)
	require.Equal(t, "alice", ex.principal())
	require.WithinDuration(t, now.Add(time.Hour), ex.expiry(), time.Millisecond)
}

func TestOAuthBearerOptionValidation(t *testing.T) {
	_, err := NewCluster(SASL(MechOAuthBearer, "u", "p"))
	require.ErrorIs(t, err, ErrBadConfig)
	c, err := NewCluster(SASLOAuthBearer(), SessionLifetime(time.Minute))
	require.NoError(t, err)
	require.NoError(t, c.Close())
}
