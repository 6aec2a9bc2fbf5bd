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
// librdkafka release followed, 2.16.0).
//
// What differs: there is no Consumer, AdminClient or transactions API
// (InitTransactions…); a program using them does not compile. The
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
// matching client.ErrDataLoss. rollsafe raises no fatal error of its own:
// only TestFatalError makes a producer fatal (an Error event with IsFatal,
// GetFatalError returning it, queued messages ErrPurgeQueue, Produce
// refused with ErrFatal), so that an application's fatal-error handling
// can be tested as with librdkafka.
//
// # Configuration properties
//
// NewProducer accepts exactly these librdkafka properties (aliases after a
// slash); any other property is an error naming it, as librdkafka reports an
// unknown one. Most are applied; those marked "reported" are accepted and
// change nothing here: each is reported once, when the producer is made,
// as a LogEvent on Logs() (with go.logs.channel.enable; Tag CONFWARN,
// level 4, as librdkafka reports ignored properties). Topic-level ones may also be given as "{topic}.name" or in
// "default.topic.config". Values may be strings, ints or bools, as in
// confluent-kafka-go.
//
//	property                          default here       maps to
//	bootstrap.servers / metadata.broker.list   (required) client.Brokers; "host:port,…", a "PLAINTEXT://" prefix is dropped
//	client.id                         rdkafka            client.ClientID
//	acks / request.required.acks      all                client.Acks: all|-1, 0, 1. 0 or 1 without enable.idempotence: not
//	                                                     idempotent, as librdkafka's default (reported); with
//	                                                     enable.idempotence=true an error, as in librdkafka
//	enable.idempotence                true (librdkafka: false)  true: rollsafe's idempotent producer. false: client.DisableIdempotence —
//	                                                     no producer id or sequence numbers, so a retried batch can be written
//	                                                     twice and a retry can reorder a partition; messages are still reported
//	                                                     written / not written / unknown, but nothing is deduplicated
//	linger.ms / queue.buffering.max.ms 5                 client.Linger (fractional ms allowed)
//	batch.size                        1000000            client.BatchBytes (uncompressed bytes at which a batch closes)
//	batch.num.messages                10000              client.BatchRecords (records at which a batch closes)
//	compression.type / compression.codec  none           client.Compression codec: none, gzip, snappy, lz4, zstd
//	compression.level                 -1 (codec default) client.Compression level
//	message.timeout.ms / delivery.timeout.ms  300000     client.DeliveryTimeout; 0 means 100 years (librdkafka: infinite)
//	request.timeout.ms                30000              client.RequestTimeout
//	retries / message.send.max.retries 2147483647        reported when set below the default: rollsafe retries a failed send
//	                                                     until message.timeout.ms, it has no retry count. 0 is refused: with
//	                                                     enable.idempotence librdkafka refuses it too; without, a program
//	                                                     setting it relies on no retry (no duplicate), which rollsafe cannot
//	                                                     give
//	retry.backoff.ms                  100                client.RetryBackoff
//	retry.backoff.max.ms              1000               client.RetryBackoffMax: failures in a row double the backoff up to
//	                                                     it (below retry.backoff.ms it is the backoff, as librdkafka does)
//	max.in.flight / max.in.flight.requests.per.connection  5   client.MaxInFlight, per partition (librdkafka: per
//	                                                     connection); at most 5 with idempotence
//	queue.buffering.max.messages      100000             Produce's ErrQueueFull limit on messages queued (delivery report not
//	                                                     yet handed over), and client.MaxBuffered
//	queue.buffering.max.kbytes        1048576            the same limit on their key+value+header bytes
//	message.max.bytes                 1000000            Produce's ErrMsgSizeTooLarge limit (key+value+headers+framing) and
//	                                                     client.MaxRecordBytes
//	partitioner                       consistent_random  client.WithPartitioner: consistent and consistent_random hash the key
//	                                                     with CRC-32 (librdkafka's default, so keys keep their partitions when a
//	                                                     program migrates); murmur2 and murmur2_random with the Java client's
//	                                                     murmur2; fnv1a and fnv1a_random with FNV-1a (Sarama's); random picks a
//	                                                     partition per message. Messages without a key (and, with
//	                                                     consistent_random, an empty key) use rollsafe's sticky partitioning.
//	security.protocol                 plaintext          ssl: client.WithTLS; sasl_plaintext: client.WithSASL; sasl_ssl: both
//	ssl.ca.location                   system roots       tls.Config.RootCAs from a PEM file ("probe": system roots)
//	ssl.certificate.location          none               tls.Config.Certificates with ssl.key.location (PEM files)
//	ssl.key.location                  none               see ssl.certificate.location (unencrypted keys only)
//	sasl.mechanisms / sasl.mechanism  GSSAPI             client.WithSASL: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512;
//	                                                     OAUTHBEARER: client.SASLOAuthBearer (GSSAPI is an error)
//	sasl.username                     none               the SASL user
//	sasl.password                     none               the SASL password
//	sasl.oauthbearer.config           none               OAuthBearerTokenRefresh.Config; with the unsecured JWT handler:
//	                                                     principal=N [lifeSeconds=S] [scopeClaimName=C] [scope=a,b]
//	                                                     [extension_K=V]
//	enable.sasl.oauthbearer.unsecure.jwt false           true: rollsafe makes unsecured JWTs ("alg":"none") from
//	                                                     sasl.oauthbearer.config (tests only); false: the application
//	                                                     answers OAuthBearerTokenRefresh events on Events() with
//	                                                     SetOAuthBearerToken (first at creation, then at 80% of each
//	                                                     token's lifetime) or SetOAuthBearerTokenFailure (asked again
//	                                                     after 10 s)
//	sasl.oauthbearer.method           default            default only (oidc is an error)
//	topic.metadata.propagation.max.ms 30000              client.UnknownTopicWait: how long a message waits for a topic the
//	                                                     cluster does not know before failing with ErrUnknownTopicOrPart
//	allow.auto.create.topics          true               client.AllowAutoTopicCreation: a message for a topic the cluster
//	                                                     does not have makes a broker with auto.create.topics.enable create
//	                                                     it (Metadata's allow_auto_topic_creation); false: it stays unknown
//	metadata.max.age.ms               300000             client.MetadataMaxAge
//	socket.connection.setup.timeout.ms 10000             client.DialTimeout
//	socket.keepalive.enable           false              reported: Go's dialer enables TCP keep-alive on every connection
//	debug                             none               reported: no librdkafka debug contexts; log_level 7 with
//	                                                     go.logs.channel.enable gives rollsafe's debug records
//	statistics.interval.ms            0 (off)            *Stats events on Events() at this interval (see Statistics)
//	go.delivery.reports (bool)        true               delivery reports on Events() for messages produced without a channel
//	go.delivery.report.fields (string) key,value         fields copied into delivery reports: key, value, headers, all, none
//	go.events.channel.size (int)      1000000            Events() channel capacity
//	go.produce.channel.size (int)     1000000            ProduceChannel() capacity
//	go.logs.channel.enable (bool)     false              rollsafe's log records on Logs() as LogEvents (Tag "ROLLSAFE")
//	go.logs.channel (chan LogEvent)   none               the channel Logs() returns instead of one made here (capacity
//	                                                     10000, closed by Close); a given one is never closed
//	go.batch.producer (bool)          false              reported: rollsafe always batches (linger.ms, batch.size)
//	log_level                         6                  the highest syslog level forwarded to Logs(): 3 errors, 4
//	                                                     warnings, 6 info, 7 debug
//
// Rejected even when valid for librdkafka: properties of the consumer,
// admin client and transactions (group.id, transactional.id…), properties
// that would do nothing here (ssl.* without ssl/sasl_ssl, sasl.* without
// sasl_*), retries=0 (see above), and the librdkafka properties not in
// the table yet (api.version.request, sticky.partitioning.linger.ms,
// socket.* other than socket.keepalive.enable and
// socket.connection.setup.timeout.ms, …).
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
