package kafka_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/confluent/kafka"
	"github.com/rollsafe/rollsafe/protocol"
	"github.com/rollsafe/rollsafe/sim"
)

// TestSetSaslCredentials: a producer logged in as alice (who may write
// topic t only) is given bob's credentials (t and u); connections already
// open stay alice's, new ones — after every broker restarted — are bob's,
// so u is written, once. Without PLAIN or SCRAM the call is refused; after
// Close it says ErrState.
func TestSetSaslCredentials(t *testing.T) {
	c := newCluster(t, 1, sim.Topic("u", 1, 3),
		sim.SASL(sim.MechScramSHA512, "alice", "a-pass"), sim.SASL(sim.MechScramSHA512, "bob", "b-pass"),
		sim.SASL(sim.MechScramSHA512, "admin", "admin-pass"), sim.SuperUser("admin"),
		sim.ACL("alice", "t", sim.OpWrite), sim.ACL("bob", "t", sim.OpWrite), sim.ACL("bob", "u", sim.OpWrite))
	p := newProducer(t, c, kafka.ConfigMap{"security.protocol": "sasl_plaintext", "sasl.mechanisms": "SCRAM-SHA-512",
		"sasl.username": "alice", "sasl.password": "a-pass", "message.timeout.ms": 10000})
	dr := make(chan kafka.Event, 10)
	produce := func(topic, v string) *kafka.Message {
		require.NoError(t, p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: 0}, Value: []byte(v)}, dr))
		return (<-dr).(*kafka.Message)
	}
	require.NoError(t, produce("t", "alice-t").TopicPartition.Error)
	m := produce("u", "alice-u")
	require.Error(t, m.TopicPartition.Error, "alice may not write u")
	require.Equal(t, kafka.MsgStatusNotPersisted, m.Status())

	require.NoError(t, p.SetSaslCredentials("bob", "b-pass"))
	for id := range int32(3) { // every connection is alice's: new ones are bob's
		require.NoError(t, c.StopBroker(id))
		require.NoError(t, c.StartBroker(id))
	}
	// The producer remembers a topic it was refused for a second (a
	// stream of messages for it fails at once meanwhile).
	time.Sleep(1100 * time.Millisecond)
	for i := range 5 {
		m := produce("u", fmt.Sprintf("bob-u-%d", i))
		require.NoError(t, m.TopicPartition.Error, "bob may write u: %v", m.TopicPartition.Error)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	log, err := readback.ReadTopicConn(ctx, c.Addrs(), "u", protocol.ConnConfig{Authenticate: protocol.SASL(protocol.SASLScramSHA512("admin", "admin-pass"))})
	require.NoError(t, err)
	var got []string
	for _, r := range log[0] {
		got = append(got, string(r.Value))
	}
	require.Equal(t, []string{"bob-u-0", "bob-u-1", "bob-u-2", "bob-u-3", "bob-u-4"}, got)

	plain := newProducer(t, c, kafka.ConfigMap{})
	require.Equal(t, kafka.ErrInvalidArg, plain.SetSaslCredentials("bob", "b-pass").(kafka.Error).Code())
	p.Close()
	require.Equal(t, kafka.ErrState, p.SetSaslCredentials("bob", "b-pass").(kafka.Error).Code())
}
