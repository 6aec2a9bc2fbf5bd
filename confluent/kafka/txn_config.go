package kafka

import (
	"fmt"
	"time"
)

// checkTransactional applies what transactional.id implies, as librdkafka's
// rd_kafka_conf_finalize does: idempotence on (an explicit
// enable.idempotence=false is an error), message.timeout.ms defaulting to
// transaction.timeout.ms and not above it, socket.timeout.ms not above
// transaction.timeout.ms + 100. acks other than all is then refused by
// check, with librdkafka's words for an idempotent producer.
func (s *settings) checkTransactional() error {
	if s.txnID == "" {
		if s.txnTimeoutSet {
			s.noted("transaction.timeout.ms", fmt.Sprint(s.txnTimeout.Milliseconds()), `used only with "transactional.id", which is not set`)
		}
		return nil
	}
	if s.idempotenceSet && !s.idempotent {
		return configError("`transactional.id` requires `enable.idempotence=true`")
	}
	s.idempotent, s.idempotenceSet = true, true
	switch {
	case !s.deliveryTimeoutSet:
		s.deliveryTimeout = s.txnTimeout
	case s.deliveryTimeout != infiniteTimeout && s.deliveryTimeout > s.txnTimeout:
		// librdkafka lets message.timeout.ms=0 (infinite) through.
		return configError("`message.timeout.ms` must be set <= `transaction.timeout.ms`")
	}
	if s.socketTimeout > 0 && time.Duration(s.socketTimeout)*time.Millisecond > s.txnTimeout+100*time.Millisecond {
		return configError("`socket.timeout.ms` must be set <= `transaction.timeout.ms` + 100")
	}
	return nil
}
