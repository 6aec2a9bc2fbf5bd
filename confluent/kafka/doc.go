// Package kafka is confluent-kafka-go's producer API on rollsafe's pure-Go
// idempotent producer: a program written for
// github.com/confluentinc/confluent-kafka-go/v2/kafka builds and runs with
// only its import line changed to github.com/rollsafe/rollsafe/confluent/kafka.
// No cgo, no librdkafka.
//
// Same names, fields, signatures and semantics: ConfigMap, NewProducer,
// Produce(*Message, chan Event), Events() (delivery reports as *Message,
// Error events, *Stats), Flush(timeoutMs) int, Len(), Close(),
// GetFatalError(), ProduceChannel() (deprecated upstream too),
// GetMetadata, QueryWatermarkOffsets, OffsetsForTimes, Purge (PurgeQueue,
// PurgeInFlight, PurgeNonBlocking), Logs() (LogEvent), SetSaslCredentials,
// Metadata, Message, TopicPartition, TopicPartitions (sortable),
// PartitionAny, Header, Timestamp/TimestampType, Opaque, Offset (with
// NewOffset, Offset.Set, OffsetTail), Error with Code(), String(),
// IsFatal(), IsRetriable(), IsTimeout(), and librdkafka's ErrorCode values
// (ErrMsgTimedOut, ErrQueueFull, …); the Handle interface that
// OAUTHBEARER token handlers take (SetOAuthBearerToken,
// SetOAuthBearerTokenFailure), TestFatalError and LibraryVersion (the
// librdkafka release followed, 2.15.0); with transactional.id the
// transactional producer: InitTransactions, BeginTransaction,
// SendOffsetsToTransaction, CommitTransaction, AbortTransaction,
// Error.TxnRequiresAbort, ConsumerGroupMetadata and
// NewTestConsumerGroupMetadata (see Transactions below).
//
// What differs: there is no Consumer or AdminClient; a program using them
// does not compile. The
// idempotent producer never goes fatal: where librdkafka raises "Local: Fatal error … sequence
// desynchronization" and stops (confluent-kafka-go#830), rollsafe reads the
// partition's log back, resends only what is proven absent under a new
// epoch, and carries on with nothing lost or duplicated. enable.idempotence
// defaults to true — unless acks is set to 0 or 1 without it: then, as
// librdkafka's default, the producer is not idempotent (see below).
//
// # What a delivery report promises
//
//	producer                      delivered (Error nil)                  failed, MsgStatusNotPersisted   failed, MsgStatusPossiblyPersisted
//	idempotent (default, acks all) in the log once, at Offset, in order  not in the log                  maybe in the log, once at most
//	enable.idempotence=false,     in the log at Offset, on all in-sync   not in the log                  maybe in the log, possibly twice
//	acks all                      replicas; an earlier retry may have
//	                              written it once more, or reordered it
//	acks 1 (not idempotent)       as above, on the leader only: an       not in the log                  maybe in the log, possibly twice
//	                              unclean election can still lose it
//	acks 0 (not idempotent)       written to the connection; nothing     never sent                      the connection broke while
//	                              says it is in the log (Offset -1)                                      it was being sent
//
// # What rollsafe knows about a failed message
//
// A delivery report's TopicPartition.Error is an Error wrapping rollsafe's
// own error: errors.Is(err, client.ErrNotWritten) means the message is
// certainly not in the log (producing it again cannot duplicate it),
// errors.Is(err, client.ErrOutcomeUnknown) that it may be. Message.Status and
// Error.MsgStatus give the same as librdkafka's message status
// (MsgStatusNotPersisted, MsgStatusPossiblyPersisted, MsgStatusPersisted),
// and Error.IsRetriable is true exactly when resending is safe. Codes:
//
//	client.ErrDeliveryTimeout        ErrMsgTimedOut (IsTimeout)
//	client.ErrRecordTooLarge         ErrMsgSizeTooLarge (also at once from Produce)
//	client.ErrUnknownTopic           ErrUnknownTopicOrPart
//	client.ErrBrokersUnreachable     ErrAllBrokersDown (and an ErrAllBrokersDown Error event, at most once a second)
//	client.ErrUnknownPartition       ErrUnknownPartition
//	client.ErrBufferFull             ErrQueueFull (Produce returns it at once)
//	client.ErrAuthentication         ErrAuthentication
//	client.ErrAuthorization          the broker's code (ErrTopicAuthorizationFailed…)
//	client.ErrClosed, ErrPurged      ErrPurgeQueue (not written) / ErrPurgeInflight (maybe written)
//	client.ErrPartitionStopped       ErrInconsistent
//	a broker error code              that code (Kafka's codes are librdkafka's positive codes)
//	anything else                    ErrFail
//
// Acknowledged messages that later vanish from a partition (an unclean
// leader election) are reported as an Error event with code ErrInconsistent
// matching client.ErrDataLoss. The idempotent producer raises no fatal
// error of its own: only TestFatalError makes it fatal (an Error event with
// IsFatal, GetFatalError returning it, queued messages ErrPurgeQueue,
// Produce refused with ErrFatal), so that an application's fatal-error
// handling can be tested as with librdkafka. A transactional producer
// goes fatal as librdkafka's does (ErrFenced…: see Transactions).
//
// # Transactions
//
// With transactional.id (which turns idempotence on; message.timeout.ms
// then defaults to transaction.timeout.ms, as in librdkafka) the producer
// writes only inside transactions: Produce outside one returns ErrState.
// A failed transaction call returns an Error with librdkafka's meaning
// (txn_errors.go holds the table):
//
//	client.ErrFenced            ErrFenced, IsFatal
//	client.ErrTxnFatal          the broker's code (else ErrFatal), IsFatal
//	client.ErrTxnAbortable      the broker's code (else ErrFail), TxnRequiresAbort (call AbortTransaction)
//	client.ErrNotTransactional  ErrNotConfigured
//	client.ErrTxnInProgress     ErrConflict, IsRetriable (another transaction call is under way)
//	client.ErrTxnState          ErrState (a commit without a transaction…)
//	context ended first         ErrTimedOut, IsRetriable (the call goes on: call it again)
//
// A fatal or abortable error a broker's code caused carries that code, as
// librdkafka's does (its ErrorCode values are Kafka's for broker errors:
// ErrTopicAuthorizationFailed, ErrInvalidTxnState…); fencing is ErrFenced.
// BeginTransaction while the transaction must be aborted returns the
// abortable error (TxnRequiresAbort), as librdkafka's begin_transaction
// does.
//
// A fatal error also makes the producer fatal (Error event, GetFatalError,
// Produce refused with ErrFatal). CommitTransaction returns after the
// transaction's delivery reports were sent; an aborted transaction's
// messages fail ErrPurgeQueue (not written) or ErrPurgeInflight (maybe in
// the log, aborted). rollsafe holds a transaction's messages until it ends:
// reports come at the commit, and Flush inside an open transaction waits
// for its end. docs/confluent.md ("Transactions") says what else differs
// from librdkafka.
//
// # Configuration properties
//
// NewProducer knows every property of librdkafka v2.15.0's
// CONFIGURATION.md (the librdkafka confluent-kafka-go bundles) and
// confluent-kafka-go's go.* properties; any other name is an error naming
// it, as librdkafka reports an unknown property. Each is applied (mapped to
// rollsafe: bootstrap.servers, acks, enable.idempotence, linger.ms,
// batch.size, compression.type, message.timeout.ms, partitioner,
// security.protocol, ssl.*, sasl.* …), reported (accepted, its value
// checked as librdkafka checks it, without effect here: reported once, when
// the producer is made, as a LogEvent on Logs() with
// go.logs.channel.enable, Tag CONFWARN, level 4, as librdkafka reports
// ignored properties; consumer properties get librdkafka's own warning) or
// refused where ignoring it would break what the program expects
// (ssl.cipher.suites, sasl.oauthbearer.method=oidc,
// librdkafka's C callbacks…; the error matches ErrUnsupportedProperty).
// Invalid values get librdkafka's error texts. Topic-level properties may
// also be given as "{topic}.name" or in "default.topic.config". Values may
// be strings, ints or bools, as in confluent-kafka-go.
//
// docs/confluent.md in rollsafe's repository lists every property with what
// happens to it; it is generated from the table NewProducer uses.
//
// # OAUTHBEARER tokens
//
// A token set with SetOAuthBearerToken counts as expiring at its
// Expiration or, when that comes first, at the "exp" claim of a JWT
// TokenValue (whole seconds: brokers go by the claim). The next
// OAuthBearerTokenRefresh comes at 80% of that lifetime. A token is never
// presented past its expiry, and a connection re-authenticates (KIP-368,
// at 80-90% of the session the broker grants) only with a token that
// outlives its current session: when it needs one sooner than the 80%
// event, the event is sent at once and the re-authentication waits for
// the answer without holding the connection's requests. With no answer
// before the session ends the connection is closed once idle and its
// messages go on a new one: none fails for it.
//
// # Statistics
//
// With statistics.interval.ms set, a *Stats event carries librdkafka's
// statistics JSON with these fields, built from rollsafe's client.Hooks:
// name, client_id, type ("producer"), ts and age (µs since the producer
// started), time (Unix seconds), replyq (events waiting in Events()),
// msg_cnt and msg_size (messages queued and their bytes, as Len counts
// them), msg_max and msg_size_max (the queue.buffering limits), tx and
// tx_bytes (record batches sent, first sends and retries, and their bytes:
// rollsafe's hooks see batches, not requests), rx (produce responses),
// txmsgs and txmsg_bytes (messages in the batches sent and the batches'
// bytes), rxmsgs, rxmsg_bytes and rx_bytes (0: a producer fetches nothing);
// brokers, keyed "node/<id>", with nodeid, state, tx, txbytes, txretries,
// rx and rtt (min, max, avg, sum, cnt, stddev, p50…p99_99 in µs over the
// interval); topics with per-partition leader, txmsgs and txbytes; eos with
// producer_id, producer_epoch (-1 until the first epoch bump) and
// epoch_cnt. rollsafe adds rollsafe_* counters (acked, failed, produced
// messages, retried batches, data-loss events; per partition acked
// messages, last acknowledged offset, epoch bumps and tail reads).
//
// See docs/confluent.md (migrating from confluent-kafka-go) in the
// repository.
package kafka
