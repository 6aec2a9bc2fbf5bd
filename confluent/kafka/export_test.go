package kafka

import "github.com/rollsafe/rollsafe/client"

// NewProducerWith is NewProducer with extra client options after the
// configuration's: the tests that run a producer inside a testing/synctest
// bubble give it sim/memnet's dialer and client.SyncTest.
func NewProducerWith(conf *ConfigMap, extra ...client.Option) (*Producer, error) {
	return newProducer(conf, extra)
}
