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
// Metadata, Message, TopicPartition, PartitionAny, Header,
// Timestamp/TimestampType, Opaque, Offset, Error with Code(), String(),
// IsFatal(), IsRetriable(), IsTimeout(), and librdkafka's ErrorCode values
// (ErrMsgTimedOut, ErrQueueFull, …).
//
// What differs: there is no Consumer, AdminClient or transactions API
// (InitTransactions…); a program using them does not compile. The
// idempotent producer never goes fatal: where librdkafka raises "Local: Fatal error … sequence
// desynchronization" and stops (confluent-kafka-go#830), rollsafe reads the
// partition's log back, resends only what is proven absent under a new
// epoch, and carries on with nothing lost or duplicated. enable.idempotence
// defaults to true.
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
// matching client.ErrDataLoss. ErrFatal is never raised: rollsafe has no
// fatal state.
//
// # Configuration properties
//
// NewProducer accepts exactly these librdkafka properties (aliases after a
// slash); any other property is an error naming it, as librdkafka reports an
// unknown one. Topic-level ones may also be given as "{topic}.name" or in
// "default.topic.config". Values may be strings, ints or bools, as in
// confluent-kafka-go.
//
//	property                          default here       maps to
//	bootstrap.servers / metadata.broker.list   (required) client.Brokers; "host:port,…", a "PLAINTEXT://" prefix is dropped
//	client.id                         rdkafka            client.ClientID
//	acks / request.required.acks      all                client.Acks: all|-1, 0, 1; 0 and 1 need enable.idempotence=false
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
//	metadata.max.age.ms               300000             client.MetadataMaxAge
//	socket.connection.setup.timeout.ms 10000             client.DialTimeout
//	statistics.interval.ms            0 (off)            *Stats events on Events() at this interval (see Statistics)
//	go.delivery.reports (bool)        true               delivery reports on Events() for messages produced without a channel
//	go.delivery.report.fields (string) key,value         fields copied into delivery reports: key, value, headers, all, none
//	go.events.channel.size (int)      1000000            Events() channel capacity
//	go.produce.channel.size (int)     1000000            ProduceChannel() capacity
//	go.logs.channel.enable (bool)     false              rollsafe's log records on Logs() as LogEvents (Tag "ROLLSAFE")
//	go.logs.channel (chan LogEvent)   none               the channel Logs() returns instead of one made here (capacity
//	                                                     10000, closed by Close); a given one is never closed
//	log_level                         6                  the highest syslog level forwarded to Logs(): 3 errors, 4
//	                                                     warnings, 6 info, 7 debug
//
// Rejected even when valid for librdkafka: properties of the consumer,
// admin client and transactions (group.id, transactional.id…), properties
// that would do nothing here (ssl.* without ssl/sasl_ssl, sasl.* without
// sasl_*) and every tuning knob rollsafe does not have (retries: rollsafe
// retries until message.timeout.ms; socket.*, debug, api.version.request…).
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
package kafka
