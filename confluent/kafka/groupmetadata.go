package kafka

// ConsumerGroupMetadata reflects the current consumer group member
// metadata: what a transactional producer's SendOffsetsToTransaction needs
// to commit a consumer group's offsets with its transaction (KIP-447).
type ConsumerGroupMetadata struct {
	g groupMetadata
}

// groupMetadata has client.GroupMetadata's fields, in its order, so that
// client.GroupMetadata(m.g) converts it.
type groupMetadata struct {
	GroupID         string
	GenerationID    int32  // -1: no group membership (a simple group)
	MemberID        string // "" without membership
	GroupInstanceID string // "" when none (no static membership)
}

// NewTestConsumerGroupMetadata creates a new consumer group metadata
// instance mainly for testing use: groupID with no membership (generation
// -1, no member id, no group instance id), as librdkafka's
// rd_kafka_consumer_group_metadata_new makes it. It never fails.
func NewTestConsumerGroupMetadata(groupID string) (*ConsumerGroupMetadata, error) {
	return &ConsumerGroupMetadata{g: groupMetadata{GroupID: groupID, GenerationID: -1}}, nil
}
