// Package bench compares rollsafe with peer Kafka clients (franz-go's kgo,
// IBM/sarama) and cross-checks it against independent brokers (kfake). It is
// its own module so that rollsafe's users never download the peers.
package bench
