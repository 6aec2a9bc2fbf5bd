package kafka

import "github.com/rollsafe/rollsafe/client"

// ConsumerGroupMetadata reflects the current consumer group member
// metadata: what a transactional producer's SendOffsetsToTransaction needs
// to commit a consumer group's offsets with its transaction (KIP-447):
// the group id, and the member's generation, member id and group instance
// id when it is a member.
type ConsumerGroupMetadata struct {
	g client.GroupMetadata
}

// NewTestConsumerGroupMetadata creates a new consumer group metadata
// instance mainly for testing use: groupID with no membership (generation
// -1, no member id, no group instance id), as librdkafka's
// rd_kafka_consumer_group_metadata_new makes it. It never fails.
func NewTestConsumerGroupMetadata(groupID string) (*ConsumerGroupMetadata, error) {
	return &ConsumerGroupMetadata{g: client.GroupMetadata{GroupID: groupID, GenerationID: -1}}, nil
}
