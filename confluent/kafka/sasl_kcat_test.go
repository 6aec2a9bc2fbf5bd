package kafka_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
)

// TestKcatSASL: librdkafka (kcat) logs in to the sim with SASL PLAIN,
// SCRAM-SHA-256, SCRAM-SHA-512 and OAUTHBEARER (its unsecured JWT
// handler) — it needs SaslHandshake v0 advertised before it speaks v1 and
// SaslAuthenticate, and (before librdkafka 2.6.1) a SCRAM nonce check
// that, as Kafka's, lets its client nonce come twice —, lists its
// metadata and produces to it; every line is in the log once, in order.
func TestKcatSASL(t *testing.T) {
	kcat := kcatPath(t)
	for _, mech := range []string{sim.MechPlain, sim.MechScramSHA256, sim.MechScramSHA512, sim.MechOAuthBearer} {
		t.Run(mech, func(t *testing.T) {
			opt := sim.SASL(mech, "alice", "pw")
			args := []string{"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=" + mech,
				"-X", "sasl.username=alice", "-X", "sasl.password=pw"}
			if mech == sim.MechOAuthBearer {
				opt = sim.SASLOAuthBearer()
				args = []string{"-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=" + mech,
					"-X", "enable.sasl.oauthbearer.unsecure.jwt=true", "-X", "sasl.oauthbearer.config=principal=alice"}
			}
			c := newCluster(t, 1, opt)
			args = append([]string{"-b", c.Addrs()[0]}, args...)
			out := runKcat(t, append(args, "-L", "-J", "-t", "t")...)
			require.Contains(t, out, `"topic":"t"`)

			var lines []string
			for i := range 20 {
				lines = append(lines, fmt.Sprintf("kcat-%d", i))
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, kcat, append(args, "-P", "-t", "t", "-p", "0")...)
			cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
			b, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", b)

			var m protocol.SASLMechanism
			if mech == sim.MechOAuthBearer {
				m = protocol.SASLOAuthBearer(func(context.Context) (protocol.OAuthBearerToken, error) {
					now := time.Now()
					return protocol.OAuthBearerToken{Value: sim.UnsecuredJWT("reader", now, now.Add(time.Hour), nil)}, nil
				})
			} else {
				m, err = protocol.NewSASLMechanism(mech, "alice", "pw")
				require.NoError(t, err)
			}
			log, err := readback.ReadTopicConn(ctx, c.Addrs(), "t", protocol.ConnConfig{Authenticate: protocol.SASL(m)})
			require.NoError(t, err)
			var got []string
			for _, r := range log[0] {
				got = append(got, string(r.Value))
			}
			require.Equal(t, lines, got)
		})
	}
}
