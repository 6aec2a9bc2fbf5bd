package sim

import (
	"encoding/binary"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// rawToken sends a SASL token as Kafka's v0 framing has it (a size
// prefix, no request header) and reads the broker's raw answer; ok is
// false when the broker closed the connection instead.
func (tc *testConn) rawToken(tok []byte) (answer []byte, ok bool) {
	tc.t.Helper()
	if _, err := tc.nc.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(tok))), tok...)); err != nil {
		tc.t.Fatal(err)
	}
	_ = tc.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	frame, err := readFrame(tc.nc)
	if err == io.EOF {
		return nil, false
	}
	require.NoError(tc.t, err)
	return frame, true
}

// TestSASLHandshakeV0: the sim advertises SaslHandshake from v0, as Kafka
// does (librdkafka requires it), and serves v0 as Kafka does: the SASL
// tokens follow as raw size-prefixed frames, without SaslAuthenticate;
// PLAIN's success is an empty frame, a refused credential closes the
// connection without an answer; a v0 handshake cannot re-authenticate.
func TestSASLHandshakeV0(t *testing.T) {
	c := newTestCluster(t, Brokers(1), Topic("t", 1, 1), SASL(MechPlain, "alice", "pw"), SASLOAuthBearer())
	lo, _, ok := versionRange(17)
	require.True(t, ok)
	require.Equal(t, int16(0), lo)

	handshake := func(tc *testConn, mech string) {
		hs := kmsg.NewPtrSASLHandshakeRequest()
		hs.SetVersion(0)
		hs.Mechanism = mech
		r := tc.do(hs).(*kmsg.SASLHandshakeResponse)
		require.Equal(t, int16(0), r.ErrorCode)
		require.Contains(t, r.SupportedMechanisms, mech)
	}
	t.Run("PLAIN", func(t *testing.T) {
		tc := dial(t, c.Addrs()[0])
		handshake(tc, MechPlain)
		answer, ok := tc.rawToken([]byte("\x00alice\x00pw"))
		require.True(t, ok)
		require.Empty(t, answer)
		md := tc.do(metadataFor(12, false, "t")).(*kmsg.MetadataResponse)
		require.Equal(t, int16(0), md.Topics[0].ErrorCode, "authenticated: requests are served")

		again := kmsg.NewPtrSASLHandshakeRequest()
		again.SetVersion(0)
		again.Mechanism = MechPlain
		require.Equal(t, errIllegalSaslState, tc.do(again).(*kmsg.SASLHandshakeResponse).ErrorCode)
	})
	t.Run("PLAIN wrong password", func(t *testing.T) {
		tc := dial(t, c.Addrs()[0])
		handshake(tc, MechPlain)
		_, ok := tc.rawToken([]byte("\x00alice\x00nope"))
		require.False(t, ok, "closed without an answer")
	})
	t.Run("OAUTHBEARER", func(t *testing.T) {
		tc := dial(t, c.Addrs()[0])
		handshake(tc, MechOAuthBearer)
		now := time.Now()
		answer, ok := tc.rawToken([]byte("n,,\x01auth=Bearer " + UnsecuredJWT("alice", now, now.Add(time.Hour), nil) + "\x01\x01"))
		require.True(t, ok)
		require.Empty(t, answer)
		require.Equal(t, int16(0), tc.do(metadataFor(12, false, "t")).(*kmsg.MetadataResponse).Topics[0].ErrorCode)
	})
	t.Run("OAUTHBEARER refused", func(t *testing.T) {
		tc := dial(t, c.Addrs()[0])
		handshake(tc, MechOAuthBearer)
		now := time.Now()
		answer, ok := tc.rawToken([]byte("n,,\x01auth=Bearer " + UnsecuredJWT("", now, now.Add(time.Hour), nil) + "\x01\x01"))
		require.True(t, ok)
		require.JSONEq(t, `{"status":"invalid_token"}`, string(answer))
		_, ok = tc.rawToken([]byte{0x01})
		require.False(t, ok, "after the client's 0x01 the connection is closed")
	})
}
