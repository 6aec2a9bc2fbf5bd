package protocol

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSASLCredentialsRotate: an exchange takes the credentials current when
// it starts; every credential ever set is redacted from broker messages;
// none appears in %v, %#v; names other than PLAIN and SCRAM are refused.
func TestSASLCredentialsRotate(t *testing.T) {
	c, err := NewSASLCredentials("plain", "u1", "p1")
	require.NoError(t, err)
	require.Equal(t, MechanismPlain, c.Name())
	first, err := c.Start()
	require.NoError(t, err)
	c.Set("u2", "p2")
	second, err := c.Start()
	require.NoError(t, err)
	msg, _, err := first.Step(nil)
	require.NoError(t, err)
	require.Equal(t, "\x00u1\x00p1", string(msg), "an exchange started before Set keeps its credentials")
	msg, _, err = second.Step(nil)
	require.NoError(t, err)
	require.Equal(t, "\x00u2\x00p2", string(msg))
	require.Equal(t, "x [redacted] [redacted] y", redact(c, "x p1 p2 y"))
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%#v", c)} {
		require.NotContains(t, s, "p1")
		require.NotContains(t, s, "p2")
	}
	_, err = NewSASLCredentials("OAUTHBEARER", "u", "p")
	require.ErrorIs(t, err, ErrUnknownMechanism)
	s, err := NewSASLCredentials("SCRAM-SHA-256", "u", "p")
	require.NoError(t, err)
	require.Equal(t, MechanismScramSHA256, s.Name())
}
