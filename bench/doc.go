// Package bench compares rollsafe with peer Kafka clients (franz-go's kgo,
// IBM/sarama) and cross-checks it against independent brokers (kfake). It is
// its own module so that rollsafe's users never download the peers.
//
// See bench/README.md (how to run each benchmark), docs/performance.md and
// docs/peers.md (the results) in the repository.
package bench
