package conformance

import (
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/kafkatest"
)

// playRestartAtOnce: the leader of a partition is killed under load and
// started again at once. In ZooKeeper mode the restart has to wait for
// the killed broker's session to expire (its registration would refuse
// the new one), which Cluster.Start does.
func playRestartAtOnce(t *testing.T, c *kafkatest.Cluster, topic string) {
	newTopic(t, c, topic, parts, nil)
	ctx := ctxFor(t, 5*time.Minute)
	l := newLoad(t, c, topic, parts, nil)
	l.run("restart")
	l.awaitAcks(0, 150, time.Minute)
	victim := leaderOf(t, ctx, c, topic, 0)
	if err := c.Kill(victim); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	if err := c.Start(ctx, victim); err != nil {
		t.Fatal(err)
	}
	t.Logf("broker %d killed and serving again %v later", victim, time.Since(killed).Round(time.Millisecond))
	handBack(t, ctx, c, topic, 0, victim)
	l.awaitAcks(0, 150, time.Minute)
	l.halt()
	l.verify()
}
