package kafka

import (
	"fmt"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// ErrorCode is the integer representation of local and broker error codes.
// The names and values are librdkafka's (rd_kafka_resp_err_t): negative
// codes are client-local, -1 and up are Kafka's broker error codes, their
// numbers taken from package kafkaerr (librdkafka names them its own way).
type ErrorCode int

// String returns the code's description, as librdkafka's rd_kafka_err2str
// words it ("Local: Message timed out").
func (c ErrorCode) String() string {
	if d, ok := errorDescs[c]; ok {
		return d
	}
	return fmt.Sprintf("Err-%d?", int(c))
}

// The error codes (librdkafka 2.x). The comment is the code's description.
const (
	// ErrBadMsg Local: Bad message format
	ErrBadMsg ErrorCode = -199
	// ErrBadCompression Local: Invalid compressed data
	ErrBadCompression ErrorCode = -198
	// ErrDestroy Local: Broker handle destroyed for termination
	ErrDestroy ErrorCode = -197
	// ErrFail Local: Communication failure with broker
	ErrFail ErrorCode = -196
	// ErrTransport Local: Broker transport failure
	ErrTransport ErrorCode = -195
	// ErrCritSysResource Local: Critical system resource failure
	ErrCritSysResource ErrorCode = -194
	// ErrResolve Local: Host resolution failure
	ErrResolve ErrorCode = -193
	// ErrMsgTimedOut Local: Message timed out
	ErrMsgTimedOut ErrorCode = -192
	// ErrPartitionEOF Broker: No more messages
	ErrPartitionEOF ErrorCode = -191
	// ErrUnknownPartition Local: Unknown partition
	ErrUnknownPartition ErrorCode = -190
	// ErrFs Local: File or filesystem error
	ErrFs ErrorCode = -189
	// ErrUnknownTopic Local: Unknown topic
	ErrUnknownTopic ErrorCode = -188
	// ErrAllBrokersDown Local: All broker connections are down
	ErrAllBrokersDown ErrorCode = -187
	// ErrInvalidArg Local: Invalid argument or configuration
	ErrInvalidArg ErrorCode = -186
	// ErrTimedOut Local: Timed out
	ErrTimedOut ErrorCode = -185
	// ErrQueueFull Local: Queue full
	ErrQueueFull ErrorCode = -184
	// ErrIsrInsuff Local: ISR count insufficient
	ErrIsrInsuff ErrorCode = -183
	// ErrNodeUpdate Local: Broker node update
	ErrNodeUpdate ErrorCode = -182
	// ErrSsl Local: SSL error
	ErrSsl ErrorCode = -181
	// ErrWaitCoord Local: Waiting for coordinator
	ErrWaitCoord ErrorCode = -180
	// ErrUnknownGroup Local: Unknown group
	ErrUnknownGroup ErrorCode = -179
	// ErrInProgress Local: Operation in progress
	ErrInProgress ErrorCode = -178
	// ErrPrevInProgress Local: Previous operation in progress
	ErrPrevInProgress ErrorCode = -177
	// ErrExistingSubscription Local: Existing subscription
	ErrExistingSubscription ErrorCode = -176
	// ErrAssignPartitions Local: Assign partitions
	ErrAssignPartitions ErrorCode = -175
	// ErrRevokePartitions Local: Revoke partitions
	ErrRevokePartitions ErrorCode = -174
	// ErrConflict Local: Conflicting use
	ErrConflict ErrorCode = -173
	// ErrState Local: Erroneous state
	ErrState ErrorCode = -172
	// ErrUnknownProtocol Local: Unknown protocol
	ErrUnknownProtocol ErrorCode = -171
	// ErrNotImplemented Local: Not implemented
	ErrNotImplemented ErrorCode = -170
	// ErrAuthentication Local: Authentication failure
	ErrAuthentication ErrorCode = -169
	// ErrNoOffset Local: No offset stored
	ErrNoOffset ErrorCode = -168
	// ErrOutdated Local: Outdated
	ErrOutdated ErrorCode = -167
	// ErrTimedOutQueue Local: Timed out in queue
	ErrTimedOutQueue ErrorCode = -166
	// ErrUnsupportedFeature Local: Required feature not supported by broker
	ErrUnsupportedFeature ErrorCode = -165
	// ErrWaitCache Local: Awaiting cache update
	ErrWaitCache ErrorCode = -164
	// ErrIntr Local: Operation interrupted
	ErrIntr ErrorCode = -163
	// ErrKeySerialization Local: Key serialization error
	ErrKeySerialization ErrorCode = -162
	// ErrValueSerialization Local: Value serialization error
	ErrValueSerialization ErrorCode = -161
	// ErrKeyDeserialization Local: Key deserialization error
	ErrKeyDeserialization ErrorCode = -160
	// ErrValueDeserialization Local: Value deserialization error
	ErrValueDeserialization ErrorCode = -159
	// ErrPartial Local: Partial response
	ErrPartial ErrorCode = -158
	// ErrReadOnly Local: Read-only object
	ErrReadOnly ErrorCode = -157
	// ErrNoent Local: No such entry
	ErrNoent ErrorCode = -156
	// ErrUnderflow Local: Read underflow
	ErrUnderflow ErrorCode = -155
	// ErrInvalidType Local: Invalid type
	ErrInvalidType ErrorCode = -154
	// ErrRetry Local: Retry operation
	ErrRetry ErrorCode = -153
	// ErrPurgeQueue Local: Purged in queue
	ErrPurgeQueue ErrorCode = -152
	// ErrPurgeInflight Local: Purged in flight
	ErrPurgeInflight ErrorCode = -151
	// ErrFatal Local: Fatal error
	ErrFatal ErrorCode = -150
	// ErrInconsistent Local: Inconsistent state
	ErrInconsistent ErrorCode = -149
	// ErrGaplessGuarantee Local: Gap-less ordering would not be guaranteed if proceeding
	ErrGaplessGuarantee ErrorCode = -148
	// ErrMaxPollExceeded Local: Maximum application poll interval (max.poll.interval.ms) exceeded
	ErrMaxPollExceeded ErrorCode = -147
	// ErrUnknownBroker Local: Unknown broker
	ErrUnknownBroker ErrorCode = -146
	// ErrNotConfigured Local: Functionality not configured
	ErrNotConfigured ErrorCode = -145
	// ErrFenced Local: This instance has been fenced by a newer instance
	ErrFenced ErrorCode = -144
	// ErrApplication Local: Application generated error
	ErrApplication ErrorCode = -143
	// ErrAssignmentLost Local: Group partition assignment lost
	ErrAssignmentLost ErrorCode = -142
	// ErrNoop Local: No operation performed
	ErrNoop ErrorCode = -141
	// ErrAutoOffsetReset Local: No offset to automatically reset to
	ErrAutoOffsetReset ErrorCode = -140
	// ErrLogTruncation Local: Partition log truncation detected
	ErrLogTruncation ErrorCode = -139
	// ErrInvalidDifferentRecord Local: an invalid record in the same batch caused the failure of this message too
	ErrInvalidDifferentRecord ErrorCode = -138
	// ErrDestroyBroker Local: Broker handle destroyed without termination
	ErrDestroyBroker ErrorCode = -137
	// ErrUnknown Unknown broker error
	ErrUnknown ErrorCode = ErrorCode(kafkaerr.UnknownServerError)
	// ErrNoError Success
	ErrNoError ErrorCode = ErrorCode(kafkaerr.None)
	// ErrOffsetOutOfRange Broker: Offset out of range
	ErrOffsetOutOfRange ErrorCode = ErrorCode(kafkaerr.OffsetOutOfRange)
	// ErrInvalidMsg Broker: Invalid message
	ErrInvalidMsg ErrorCode = ErrorCode(kafkaerr.CorruptMessage)
	// ErrUnknownTopicOrPart Broker: Unknown topic or partition
	ErrUnknownTopicOrPart ErrorCode = ErrorCode(kafkaerr.UnknownTopicOrPartition)
	// ErrInvalidMsgSize Broker: Invalid message size
	ErrInvalidMsgSize ErrorCode = ErrorCode(kafkaerr.InvalidFetchSize)
	// ErrLeaderNotAvailable Broker: Leader not available
	ErrLeaderNotAvailable ErrorCode = ErrorCode(kafkaerr.LeaderNotAvailable)
	// ErrNotLeaderForPartition Broker: Not leader for partition
	ErrNotLeaderForPartition ErrorCode = ErrorCode(kafkaerr.NotLeaderOrFollower)
	// ErrRequestTimedOut Broker: Request timed out
	ErrRequestTimedOut ErrorCode = ErrorCode(kafkaerr.RequestTimedOut)
	// ErrBrokerNotAvailable Broker: Broker not available
	ErrBrokerNotAvailable ErrorCode = ErrorCode(kafkaerr.BrokerNotAvailable)
	// ErrReplicaNotAvailable Broker: Replica not available
	ErrReplicaNotAvailable ErrorCode = ErrorCode(kafkaerr.ReplicaNotAvailable)
	// ErrMsgSizeTooLarge Broker: Message size too large
	ErrMsgSizeTooLarge ErrorCode = ErrorCode(kafkaerr.MessageTooLarge)
	// ErrStaleCtrlEpoch Broker: StaleControllerEpochCode
	ErrStaleCtrlEpoch ErrorCode = ErrorCode(kafkaerr.StaleControllerEpoch)
	// ErrOffsetMetadataTooLarge Broker: Offset metadata string too large
	ErrOffsetMetadataTooLarge ErrorCode = ErrorCode(kafkaerr.OffsetMetadataTooLarge)
	// ErrNetworkException Broker: Broker disconnected before response received
	ErrNetworkException ErrorCode = ErrorCode(kafkaerr.NetworkException)
	// ErrCoordinatorLoadInProgress Broker: Coordinator load in progress
	ErrCoordinatorLoadInProgress ErrorCode = ErrorCode(kafkaerr.CoordinatorLoadInProgress)
	// ErrCoordinatorNotAvailable Broker: Coordinator not available
	ErrCoordinatorNotAvailable ErrorCode = ErrorCode(kafkaerr.CoordinatorNotAvailable)
	// ErrNotCoordinator Broker: Not coordinator
	ErrNotCoordinator ErrorCode = ErrorCode(kafkaerr.NotCoordinator)
	// ErrTopicException Broker: Invalid topic
	ErrTopicException ErrorCode = ErrorCode(kafkaerr.InvalidTopicException)
	// ErrRecordListTooLarge Broker: Message batch larger than configured server segment size
	ErrRecordListTooLarge ErrorCode = ErrorCode(kafkaerr.RecordListTooLarge)
	// ErrNotEnoughReplicas Broker: Not enough in-sync replicas
	ErrNotEnoughReplicas ErrorCode = ErrorCode(kafkaerr.NotEnoughReplicas)
	// ErrNotEnoughReplicasAfterAppend Broker: Message(s) written to insufficient number of in-sync replicas
	ErrNotEnoughReplicasAfterAppend ErrorCode = ErrorCode(kafkaerr.NotEnoughReplicasAfterAppend)
	// ErrInvalidRequiredAcks Broker: Invalid required acks value
	ErrInvalidRequiredAcks ErrorCode = ErrorCode(kafkaerr.InvalidRequiredAcks)
	// ErrIllegalGeneration Broker: Specified group generation id is not valid
	ErrIllegalGeneration ErrorCode = ErrorCode(kafkaerr.IllegalGeneration)
	// ErrInconsistentGroupProtocol Broker: Inconsistent group protocol
	ErrInconsistentGroupProtocol ErrorCode = ErrorCode(kafkaerr.InconsistentGroupProtocol)
	// ErrInvalidGroupID Broker: Invalid group.id
	ErrInvalidGroupID ErrorCode = ErrorCode(kafkaerr.InvalidGroupID)
	// ErrUnknownMemberID Broker: Unknown member
	ErrUnknownMemberID ErrorCode = ErrorCode(kafkaerr.UnknownMemberID)
	// ErrInvalidSessionTimeout Broker: Invalid session timeout
	ErrInvalidSessionTimeout ErrorCode = ErrorCode(kafkaerr.InvalidSessionTimeout)
	// ErrRebalanceInProgress Broker: Group rebalance in progress
	ErrRebalanceInProgress ErrorCode = ErrorCode(kafkaerr.RebalanceInProgress)
	// ErrInvalidCommitOffsetSize Broker: Commit offset data size is not valid
	ErrInvalidCommitOffsetSize ErrorCode = ErrorCode(kafkaerr.InvalidCommitOffsetSize)
	// ErrTopicAuthorizationFailed Broker: Topic authorization failed
	ErrTopicAuthorizationFailed ErrorCode = ErrorCode(kafkaerr.TopicAuthorizationFailed)
	// ErrGroupAuthorizationFailed Broker: Group authorization failed
	ErrGroupAuthorizationFailed ErrorCode = ErrorCode(kafkaerr.GroupAuthorizationFailed)
	// ErrClusterAuthorizationFailed Broker: Cluster authorization failed
	ErrClusterAuthorizationFailed ErrorCode = ErrorCode(kafkaerr.ClusterAuthorizationFailed)
	// ErrInvalidTimestamp Broker: Invalid timestamp
	ErrInvalidTimestamp ErrorCode = ErrorCode(kafkaerr.InvalidTimestamp)
	// ErrUnsupportedSaslMechanism Broker: Unsupported SASL mechanism
	ErrUnsupportedSaslMechanism ErrorCode = ErrorCode(kafkaerr.UnsupportedSaslMechanism)
	// ErrIllegalSaslState Broker: Request not valid in current SASL state
	ErrIllegalSaslState ErrorCode = ErrorCode(kafkaerr.IllegalSaslState)
	// ErrUnsupportedVersion Broker: API version not supported
	ErrUnsupportedVersion ErrorCode = ErrorCode(kafkaerr.UnsupportedVersion)
	// ErrTopicAlreadyExists Broker: Topic already exists
	ErrTopicAlreadyExists ErrorCode = ErrorCode(kafkaerr.TopicAlreadyExists)
	// ErrInvalidPartitions Broker: Invalid number of partitions
	ErrInvalidPartitions ErrorCode = ErrorCode(kafkaerr.InvalidPartitions)
	// ErrInvalidReplicationFactor Broker: Invalid replication factor
	ErrInvalidReplicationFactor ErrorCode = ErrorCode(kafkaerr.InvalidReplicationFactor)
	// ErrInvalidReplicaAssignment Broker: Invalid replica assignment
	ErrInvalidReplicaAssignment ErrorCode = ErrorCode(kafkaerr.InvalidReplicaAssignment)
	// ErrInvalidConfig Broker: Configuration is invalid
	ErrInvalidConfig ErrorCode = ErrorCode(kafkaerr.InvalidConfig)
	// ErrNotController Broker: Not controller for cluster
	ErrNotController ErrorCode = ErrorCode(kafkaerr.NotController)
	// ErrInvalidRequest Broker: Invalid request
	ErrInvalidRequest ErrorCode = ErrorCode(kafkaerr.InvalidRequest)
	// ErrUnsupportedForMessageFormat Broker: Message format on broker does not support request
	ErrUnsupportedForMessageFormat ErrorCode = ErrorCode(kafkaerr.UnsupportedForMessageFormat)
	// ErrPolicyViolation Broker: Policy violation
	ErrPolicyViolation ErrorCode = ErrorCode(kafkaerr.PolicyViolation)
	// ErrOutOfOrderSequenceNumber Broker: Broker received an out of order sequence number
	ErrOutOfOrderSequenceNumber ErrorCode = ErrorCode(kafkaerr.OutOfOrderSequenceNumber)
	// ErrDuplicateSequenceNumber Broker: Broker received a duplicate sequence number
	ErrDuplicateSequenceNumber ErrorCode = ErrorCode(kafkaerr.DuplicateSequenceNumber)
	// ErrInvalidProducerEpoch Broker: Producer attempted an operation with an old epoch
	ErrInvalidProducerEpoch ErrorCode = ErrorCode(kafkaerr.InvalidProducerEpoch)
	// ErrInvalidTxnState Broker: Producer attempted a transactional operation in an invalid state
	ErrInvalidTxnState ErrorCode = ErrorCode(kafkaerr.InvalidTxnState)
	// ErrInvalidProducerIDMapping Broker: Producer attempted to use a producer id which is not currently assigned to its transactional id
	ErrInvalidProducerIDMapping ErrorCode = ErrorCode(kafkaerr.InvalidProducerIDMapping)
	// ErrInvalidTransactionTimeout Broker: Transaction timeout is larger than the maximum value allowed by the broker's max.transaction.timeout.ms
	ErrInvalidTransactionTimeout ErrorCode = ErrorCode(kafkaerr.InvalidTransactionTimeout)
	// ErrConcurrentTransactions Broker: Producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing
	ErrConcurrentTransactions ErrorCode = ErrorCode(kafkaerr.ConcurrentTransactions)
	// ErrTransactionCoordinatorFenced Broker: Indicates that the transaction coordinator sending a WriteTxnMarker is no longer the current coordinator for a given producer
	ErrTransactionCoordinatorFenced ErrorCode = ErrorCode(kafkaerr.TransactionCoordinatorFenced)
	// ErrTransactionalIDAuthorizationFailed Broker: Transactional Id authorization failed
	ErrTransactionalIDAuthorizationFailed ErrorCode = ErrorCode(kafkaerr.TransactionalIDAuthorizationFailed)
	// ErrSecurityDisabled Broker: Security features are disabled
	ErrSecurityDisabled ErrorCode = ErrorCode(kafkaerr.SecurityDisabled)
	// ErrOperationNotAttempted Broker: Operation not attempted
	ErrOperationNotAttempted ErrorCode = ErrorCode(kafkaerr.OperationNotAttempted)
	// ErrKafkaStorageError Broker: Disk error when trying to access log file on disk
	ErrKafkaStorageError ErrorCode = ErrorCode(kafkaerr.KafkaStorageError)
	// ErrLogDirNotFound Broker: The user-specified log directory is not found in the broker config
	ErrLogDirNotFound ErrorCode = ErrorCode(kafkaerr.LogDirNotFound)
	// ErrSaslAuthenticationFailed Broker: SASL Authentication failed
	ErrSaslAuthenticationFailed ErrorCode = ErrorCode(kafkaerr.SaslAuthenticationFailed)
	// ErrUnknownProducerID Broker: Unknown Producer Id
	ErrUnknownProducerID ErrorCode = ErrorCode(kafkaerr.UnknownProducerID)
	// ErrReassignmentInProgress Broker: Partition reassignment is in progress
	ErrReassignmentInProgress ErrorCode = ErrorCode(kafkaerr.ReassignmentInProgress)
	// ErrDelegationTokenAuthDisabled Broker: Delegation Token feature is not enabled
	ErrDelegationTokenAuthDisabled ErrorCode = ErrorCode(kafkaerr.DelegationTokenAuthDisabled)
	// ErrDelegationTokenNotFound Broker: Delegation Token is not found on server
	ErrDelegationTokenNotFound ErrorCode = ErrorCode(kafkaerr.DelegationTokenNotFound)
	// ErrDelegationTokenOwnerMismatch Broker: Specified Principal is not valid Owner/Renewer
	ErrDelegationTokenOwnerMismatch ErrorCode = ErrorCode(kafkaerr.DelegationTokenOwnerMismatch)
	// ErrDelegationTokenRequestNotAllowed Broker: Delegation Token requests are not allowed on this connection
	ErrDelegationTokenRequestNotAllowed ErrorCode = ErrorCode(kafkaerr.DelegationTokenRequestNotAllowed)
	// ErrDelegationTokenAuthorizationFailed Broker: Delegation Token authorization failed
	ErrDelegationTokenAuthorizationFailed ErrorCode = ErrorCode(kafkaerr.DelegationTokenAuthorizationFailed)
	// ErrDelegationTokenExpired Broker: Delegation Token is expired
	ErrDelegationTokenExpired ErrorCode = ErrorCode(kafkaerr.DelegationTokenExpired)
	// ErrInvalidPrincipalType Broker: Supplied principalType is not supported
	ErrInvalidPrincipalType ErrorCode = ErrorCode(kafkaerr.InvalidPrincipalType)
	// ErrNonEmptyGroup Broker: The group is not empty
	ErrNonEmptyGroup ErrorCode = ErrorCode(kafkaerr.NonEmptyGroup)
	// ErrGroupIDNotFound Broker: The group id does not exist
	ErrGroupIDNotFound ErrorCode = ErrorCode(kafkaerr.GroupIDNotFound)
	// ErrFetchSessionIDNotFound Broker: The fetch session ID was not found
	ErrFetchSessionIDNotFound ErrorCode = ErrorCode(kafkaerr.FetchSessionIDNotFound)
	// ErrInvalidFetchSessionEpoch Broker: The fetch session epoch is invalid
	ErrInvalidFetchSessionEpoch ErrorCode = ErrorCode(kafkaerr.InvalidFetchSessionEpoch)
	// ErrListenerNotFound Broker: No matching listener
	ErrListenerNotFound ErrorCode = ErrorCode(kafkaerr.ListenerNotFound)
	// ErrTopicDeletionDisabled Broker: Topic deletion is disabled
	ErrTopicDeletionDisabled ErrorCode = ErrorCode(kafkaerr.TopicDeletionDisabled)
	// ErrFencedLeaderEpoch Broker: Leader epoch is older than broker epoch
	ErrFencedLeaderEpoch ErrorCode = ErrorCode(kafkaerr.FencedLeaderEpoch)
	// ErrUnknownLeaderEpoch Broker: Leader epoch is newer than broker epoch
	ErrUnknownLeaderEpoch ErrorCode = ErrorCode(kafkaerr.UnknownLeaderEpoch)
	// ErrUnsupportedCompressionType Broker: Unsupported compression type
	ErrUnsupportedCompressionType ErrorCode = ErrorCode(kafkaerr.UnsupportedCompressionType)
	// ErrStaleBrokerEpoch Broker: Broker epoch has changed
	ErrStaleBrokerEpoch ErrorCode = ErrorCode(kafkaerr.StaleBrokerEpoch)
	// ErrOffsetNotAvailable Broker: Leader high watermark is not caught up
	ErrOffsetNotAvailable ErrorCode = ErrorCode(kafkaerr.OffsetNotAvailable)
	// ErrMemberIDRequired Broker: Group member needs a valid member ID
	ErrMemberIDRequired ErrorCode = ErrorCode(kafkaerr.MemberIDRequired)
	// ErrPreferredLeaderNotAvailable Broker: Preferred leader was not available
	ErrPreferredLeaderNotAvailable ErrorCode = ErrorCode(kafkaerr.PreferredLeaderNotAvailable)
	// ErrGroupMaxSizeReached Broker: Consumer group has reached maximum size
	ErrGroupMaxSizeReached ErrorCode = ErrorCode(kafkaerr.GroupMaxSizeReached)
	// ErrFencedInstanceID Broker: Static consumer fenced by other consumer with same group.instance.id
	ErrFencedInstanceID ErrorCode = ErrorCode(kafkaerr.FencedInstanceID)
	// ErrEligibleLeadersNotAvailable Broker: Eligible partition leaders are not available
	ErrEligibleLeadersNotAvailable ErrorCode = ErrorCode(kafkaerr.EligibleLeadersNotAvailable)
	// ErrElectionNotNeeded Broker: Leader election not needed for topic partition
	ErrElectionNotNeeded ErrorCode = ErrorCode(kafkaerr.ElectionNotNeeded)
	// ErrNoReassignmentInProgress Broker: No partition reassignment is in progress
	ErrNoReassignmentInProgress ErrorCode = ErrorCode(kafkaerr.NoReassignmentInProgress)
	// ErrGroupSubscribedToTopic Broker: Deleting offsets of a topic while the consumer group is subscribed to it
	ErrGroupSubscribedToTopic ErrorCode = ErrorCode(kafkaerr.GroupSubscribedToTopic)
	// ErrInvalidRecord Broker: Broker failed to validate record
	ErrInvalidRecord ErrorCode = ErrorCode(kafkaerr.InvalidRecord)
	// ErrUnstableOffsetCommit Broker: There are unstable offsets that need to be cleared
	ErrUnstableOffsetCommit ErrorCode = ErrorCode(kafkaerr.UnstableOffsetCommit)
	// ErrThrottlingQuotaExceeded Broker: Throttling quota has been exceeded
	ErrThrottlingQuotaExceeded ErrorCode = ErrorCode(kafkaerr.ThrottlingQuotaExceeded)
	// ErrProducerFenced Broker: There is a newer producer with the same transactionalId which fences the current one
	ErrProducerFenced ErrorCode = ErrorCode(kafkaerr.ProducerFenced)
	// ErrResourceNotFound Broker: Request illegally referred to resource that does not exist
	ErrResourceNotFound ErrorCode = ErrorCode(kafkaerr.ResourceNotFound)
	// ErrDuplicateResource Broker: Request illegally referred to the same resource twice
	ErrDuplicateResource ErrorCode = ErrorCode(kafkaerr.DuplicateResource)
	// ErrUnacceptableCredential Broker: Requested credential would not meet criteria for acceptability
	ErrUnacceptableCredential ErrorCode = ErrorCode(kafkaerr.UnacceptableCredential)
	// ErrInconsistentVoterSet Broker: Indicates that the either the sender or recipient of a voter-only request is not one of the expected voters
	ErrInconsistentVoterSet ErrorCode = ErrorCode(kafkaerr.InconsistentVoterSet)
	// ErrInvalidUpdateVersion Broker: Invalid update version
	ErrInvalidUpdateVersion ErrorCode = ErrorCode(kafkaerr.InvalidUpdateVersion)
	// ErrFeatureUpdateFailed Broker: Unable to update finalized features due to server error
	ErrFeatureUpdateFailed ErrorCode = ErrorCode(kafkaerr.FeatureUpdateFailed)
	// ErrPrincipalDeserializationFailure Broker: Request principal deserialization failed during forwarding
	ErrPrincipalDeserializationFailure ErrorCode = ErrorCode(kafkaerr.PrincipalDeserializationFailure)
	// ErrUnknownTopicID Broker: Unknown topic id
	ErrUnknownTopicID ErrorCode = ErrorCode(kafkaerr.UnknownTopicID)
	// ErrInconsistentTopicID Broker: The log's topic ID did not match the topic ID in the request
	ErrInconsistentTopicID ErrorCode = ErrorCode(kafkaerr.InconsistentTopicID)
	// ErrFencedMemberEpoch Broker: The member epoch is fenced by the group coordinator
	ErrFencedMemberEpoch ErrorCode = ErrorCode(kafkaerr.FencedMemberEpoch)
	// ErrUnreleasedInstanceID Broker: The instance ID is still used by another member in the consumer group
	ErrUnreleasedInstanceID ErrorCode = ErrorCode(kafkaerr.UnreleasedInstanceID)
	// ErrUnsupportedAssignor Broker: The assignor or its version range is not supported by the consumer group
	ErrUnsupportedAssignor ErrorCode = ErrorCode(kafkaerr.UnsupportedAssignor)
	// ErrStaleMemberEpoch Broker: The member epoch is stale
	ErrStaleMemberEpoch ErrorCode = ErrorCode(kafkaerr.StaleMemberEpoch)
	// ErrMismatchedEndpointType Broker: The request was sent to an endpoint of the wrong type
	ErrMismatchedEndpointType ErrorCode = ErrorCode(kafkaerr.MismatchedEndpointType)
	// ErrUnsupportedEndpointType Broker: This endpoint type is not supported yet
	ErrUnsupportedEndpointType ErrorCode = ErrorCode(kafkaerr.UnsupportedEndpointType)
	// ErrUnknownControllerID Broker: This controller ID is not known
	ErrUnknownControllerID ErrorCode = ErrorCode(kafkaerr.UnknownControllerID)
	// ErrUnknownSubscriptionID Broker: Client sent a push telemetry request with an invalid or outdated subscription ID
	ErrUnknownSubscriptionID ErrorCode = ErrorCode(kafkaerr.UnknownSubscriptionID)
	// ErrTelemetryTooLarge Broker: Client sent a push telemetry request larger than the maximum size the broker will accept
	ErrTelemetryTooLarge ErrorCode = ErrorCode(kafkaerr.TelemetryTooLarge)
	// ErrInvalidRegistration Broker: The controller has considered the broker registration to be invalid
	ErrInvalidRegistration ErrorCode = ErrorCode(kafkaerr.InvalidRegistration)
	// ErrTransactionAbortable Broker: The server encountered an error with the transaction
	ErrTransactionAbortable ErrorCode = ErrorCode(kafkaerr.TransactionAbortable)
	// ErrInvalidRecordState Broker: The record state is invalid
	ErrInvalidRecordState ErrorCode = ErrorCode(kafkaerr.InvalidRecordState)
	// ErrShareSessionNotFound Broker: The share session was not found
	ErrShareSessionNotFound ErrorCode = ErrorCode(kafkaerr.ShareSessionNotFound)
	// ErrInvalidShareSessionEpoch Broker: The share session epoch is invalid
	ErrInvalidShareSessionEpoch ErrorCode = ErrorCode(kafkaerr.InvalidShareSessionEpoch)
	// ErrFencedStateEpoch Broker: The share-group state epoch did not match
	ErrFencedStateEpoch ErrorCode = ErrorCode(kafkaerr.FencedStateEpoch)
	// ErrInvalidVoterKey Broker: The voter key doesn't match the receiving replica's key
	ErrInvalidVoterKey ErrorCode = ErrorCode(kafkaerr.InvalidVoterKey)
	// ErrDuplicateVoter Broker: The voter is already part of the set of voters
	ErrDuplicateVoter ErrorCode = ErrorCode(kafkaerr.DuplicateVoter)
	// ErrVoterNotFound Broker: The voter is not part of the set of voters
	ErrVoterNotFound ErrorCode = ErrorCode(kafkaerr.VoterNotFound)
	// ErrInvalidRegularExpression Broker: The regular expression is not valid
	ErrInvalidRegularExpression ErrorCode = ErrorCode(kafkaerr.InvalidRegularExpression)
	// ErrRebootstrapRequired Broker: Client metadata is stale, client should rebootstrap to obtain new metadata
	ErrRebootstrapRequired ErrorCode = ErrorCode(kafkaerr.RebootstrapRequired)
	// ErrStreamsInvalidTopology Broker: The supplied topology is invalid
	ErrStreamsInvalidTopology ErrorCode = ErrorCode(kafkaerr.StreamsInvalidTopology)
	// ErrStreamsInvalidTopologyEpoch Broker: The supplied topology epoch is invalid
	ErrStreamsInvalidTopologyEpoch ErrorCode = ErrorCode(kafkaerr.StreamsInvalidTopologyEpoch)
	// ErrStreamsTopologyFenced Broker: The supplied topology epoch is outdated
	ErrStreamsTopologyFenced ErrorCode = ErrorCode(kafkaerr.StreamsTopologyFenced)
	// ErrShareSessionLimitReached Broker: The limit of share sessions has been reached
	ErrShareSessionLimitReached ErrorCode = ErrorCode(kafkaerr.ShareSessionLimitReached)
)

var errorDescs = map[ErrorCode]string{
	ErrBadMsg:                             "Local: Bad message format",
	ErrBadCompression:                     "Local: Invalid compressed data",
	ErrDestroy:                            "Local: Broker handle destroyed for termination",
	ErrFail:                               "Local: Communication failure with broker",
	ErrTransport:                          "Local: Broker transport failure",
	ErrCritSysResource:                    "Local: Critical system resource failure",
	ErrResolve:                            "Local: Host resolution failure",
	ErrMsgTimedOut:                        "Local: Message timed out",
	ErrPartitionEOF:                       "Broker: No more messages",
	ErrUnknownPartition:                   "Local: Unknown partition",
	ErrFs:                                 "Local: File or filesystem error",
	ErrUnknownTopic:                       "Local: Unknown topic",
	ErrAllBrokersDown:                     "Local: All broker connections are down",
	ErrInvalidArg:                         "Local: Invalid argument or configuration",
	ErrTimedOut:                           "Local: Timed out",
	ErrQueueFull:                          "Local: Queue full",
	ErrIsrInsuff:                          "Local: ISR count insufficient",
	ErrNodeUpdate:                         "Local: Broker node update",
	ErrSsl:                                "Local: SSL error",
	ErrWaitCoord:                          "Local: Waiting for coordinator",
	ErrUnknownGroup:                       "Local: Unknown group",
	ErrInProgress:                         "Local: Operation in progress",
	ErrPrevInProgress:                     "Local: Previous operation in progress",
	ErrExistingSubscription:               "Local: Existing subscription",
	ErrAssignPartitions:                   "Local: Assign partitions",
	ErrRevokePartitions:                   "Local: Revoke partitions",
	ErrConflict:                           "Local: Conflicting use",
	ErrState:                              "Local: Erroneous state",
	ErrUnknownProtocol:                    "Local: Unknown protocol",
	ErrNotImplemented:                     "Local: Not implemented",
	ErrAuthentication:                     "Local: Authentication failure",
	ErrNoOffset:                           "Local: No offset stored",
	ErrOutdated:                           "Local: Outdated",
	ErrTimedOutQueue:                      "Local: Timed out in queue",
	ErrUnsupportedFeature:                 "Local: Required feature not supported by broker",
	ErrWaitCache:                          "Local: Awaiting cache update",
	ErrIntr:                               "Local: Operation interrupted",
	ErrKeySerialization:                   "Local: Key serialization error",
	ErrValueSerialization:                 "Local: Value serialization error",
	ErrKeyDeserialization:                 "Local: Key deserialization error",
	ErrValueDeserialization:               "Local: Value deserialization error",
	ErrPartial:                            "Local: Partial response",
	ErrReadOnly:                           "Local: Read-only object",
	ErrNoent:                              "Local: No such entry",
	ErrUnderflow:                          "Local: Read underflow",
	ErrInvalidType:                        "Local: Invalid type",
	ErrRetry:                              "Local: Retry operation",
	ErrPurgeQueue:                         "Local: Purged in queue",
	ErrPurgeInflight:                      "Local: Purged in flight",
	ErrFatal:                              "Local: Fatal error",
	ErrInconsistent:                       "Local: Inconsistent state",
	ErrGaplessGuarantee:                   "Local: Gap-less ordering would not be guaranteed if proceeding",
	ErrMaxPollExceeded:                    "Local: Maximum application poll interval (max.poll.interval.ms) exceeded",
	ErrUnknownBroker:                      "Local: Unknown broker",
	ErrNotConfigured:                      "Local: Functionality not configured",
	ErrFenced:                             "Local: This instance has been fenced by a newer instance",
	ErrApplication:                        "Local: Application generated error",
	ErrAssignmentLost:                     "Local: Group partition assignment lost",
	ErrNoop:                               "Local: No operation performed",
	ErrAutoOffsetReset:                    "Local: No offset to automatically reset to",
	ErrLogTruncation:                      "Local: Partition log truncation detected",
	ErrInvalidDifferentRecord:             "Local: an invalid record in the same batch caused the failure of this message too",
	ErrDestroyBroker:                      "Local: Broker handle destroyed without termination",
	ErrUnknown:                            "Unknown broker error",
	ErrNoError:                            "Success",
	ErrOffsetOutOfRange:                   "Broker: Offset out of range",
	ErrInvalidMsg:                         "Broker: Invalid message",
	ErrUnknownTopicOrPart:                 "Broker: Unknown topic or partition",
	ErrInvalidMsgSize:                     "Broker: Invalid message size",
	ErrLeaderNotAvailable:                 "Broker: Leader not available",
	ErrNotLeaderForPartition:              "Broker: Not leader for partition",
	ErrRequestTimedOut:                    "Broker: Request timed out",
	ErrBrokerNotAvailable:                 "Broker: Broker not available",
	ErrReplicaNotAvailable:                "Broker: Replica not available",
	ErrMsgSizeTooLarge:                    "Broker: Message size too large",
	ErrStaleCtrlEpoch:                     "Broker: StaleControllerEpochCode",
	ErrOffsetMetadataTooLarge:             "Broker: Offset metadata string too large",
	ErrNetworkException:                   "Broker: Broker disconnected before response received",
	ErrCoordinatorLoadInProgress:          "Broker: Coordinator load in progress",
	ErrCoordinatorNotAvailable:            "Broker: Coordinator not available",
	ErrNotCoordinator:                     "Broker: Not coordinator",
	ErrTopicException:                     "Broker: Invalid topic",
	ErrRecordListTooLarge:                 "Broker: Message batch larger than configured server segment size",
	ErrNotEnoughReplicas:                  "Broker: Not enough in-sync replicas",
	ErrNotEnoughReplicasAfterAppend:       "Broker: Message(s) written to insufficient number of in-sync replicas",
	ErrInvalidRequiredAcks:                "Broker: Invalid required acks value",
	ErrIllegalGeneration:                  "Broker: Specified group generation id is not valid",
	ErrInconsistentGroupProtocol:          "Broker: Inconsistent group protocol",
	ErrInvalidGroupID:                     "Broker: Invalid group.id",
	ErrUnknownMemberID:                    "Broker: Unknown member",
	ErrInvalidSessionTimeout:              "Broker: Invalid session timeout",
	ErrRebalanceInProgress:                "Broker: Group rebalance in progress",
	ErrInvalidCommitOffsetSize:            "Broker: Commit offset data size is not valid",
	ErrTopicAuthorizationFailed:           "Broker: Topic authorization failed",
	ErrGroupAuthorizationFailed:           "Broker: Group authorization failed",
	ErrClusterAuthorizationFailed:         "Broker: Cluster authorization failed",
	ErrInvalidTimestamp:                   "Broker: Invalid timestamp",
	ErrUnsupportedSaslMechanism:           "Broker: Unsupported SASL mechanism",
	ErrIllegalSaslState:                   "Broker: Request not valid in current SASL state",
	ErrUnsupportedVersion:                 "Broker: API version not supported",
	ErrTopicAlreadyExists:                 "Broker: Topic already exists",
	ErrInvalidPartitions:                  "Broker: Invalid number of partitions",
	ErrInvalidReplicationFactor:           "Broker: Invalid replication factor",
	ErrInvalidReplicaAssignment:           "Broker: Invalid replica assignment",
	ErrInvalidConfig:                      "Broker: Configuration is invalid",
	ErrNotController:                      "Broker: Not controller for cluster",
	ErrInvalidRequest:                     "Broker: Invalid request",
	ErrUnsupportedForMessageFormat:        "Broker: Message format on broker does not support request",
	ErrPolicyViolation:                    "Broker: Policy violation",
	ErrOutOfOrderSequenceNumber:           "Broker: Broker received an out of order sequence number",
	ErrDuplicateSequenceNumber:            "Broker: Broker received a duplicate sequence number",
	ErrInvalidProducerEpoch:               "Broker: Producer attempted an operation with an old epoch",
	ErrInvalidTxnState:                    "Broker: Producer attempted a transactional operation in an invalid state",
	ErrInvalidProducerIDMapping:           "Broker: Producer attempted to use a producer id which is not currently assigned to its transactional id",
	ErrInvalidTransactionTimeout:          "Broker: Transaction timeout is larger than the maximum value allowed by the broker's max.transaction.timeout.ms",
	ErrConcurrentTransactions:             "Broker: Producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing",
	ErrTransactionCoordinatorFenced:       "Broker: Indicates that the transaction coordinator sending a WriteTxnMarker is no longer the current coordinator for a given producer",
	ErrTransactionalIDAuthorizationFailed: "Broker: Transactional Id authorization failed",
	ErrSecurityDisabled:                   "Broker: Security features are disabled",
	ErrOperationNotAttempted:              "Broker: Operation not attempted",
	ErrKafkaStorageError:                  "Broker: Disk error when trying to access log file on disk",
	ErrLogDirNotFound:                     "Broker: The user-specified log directory is not found in the broker config",
	ErrSaslAuthenticationFailed:           "Broker: SASL Authentication failed",
	ErrUnknownProducerID:                  "Broker: Unknown Producer Id",
	ErrReassignmentInProgress:             "Broker: Partition reassignment is in progress",
	ErrDelegationTokenAuthDisabled:        "Broker: Delegation Token feature is not enabled",
	ErrDelegationTokenNotFound:            "Broker: Delegation Token is not found on server",
	ErrDelegationTokenOwnerMismatch:       "Broker: Specified Principal is not valid Owner/Renewer",
	ErrDelegationTokenRequestNotAllowed:   "Broker: Delegation Token requests are not allowed on this connection",
	ErrDelegationTokenAuthorizationFailed: "Broker: Delegation Token authorization failed",
	ErrDelegationTokenExpired:             "Broker: Delegation Token is expired",
	ErrInvalidPrincipalType:               "Broker: Supplied principalType is not supported",
	ErrNonEmptyGroup:                      "Broker: The group is not empty",
	ErrGroupIDNotFound:                    "Broker: The group id does not exist",
	ErrFetchSessionIDNotFound:             "Broker: The fetch session ID was not found",
	ErrInvalidFetchSessionEpoch:           "Broker: The fetch session epoch is invalid",
	ErrListenerNotFound:                   "Broker: No matching listener",
	ErrTopicDeletionDisabled:              "Broker: Topic deletion is disabled",
	ErrFencedLeaderEpoch:                  "Broker: Leader epoch is older than broker epoch",
	ErrUnknownLeaderEpoch:                 "Broker: Leader epoch is newer than broker epoch",
	ErrUnsupportedCompressionType:         "Broker: Unsupported compression type",
	ErrStaleBrokerEpoch:                   "Broker: Broker epoch has changed",
	ErrOffsetNotAvailable:                 "Broker: Leader high watermark is not caught up",
	ErrMemberIDRequired:                   "Broker: Group member needs a valid member ID",
	ErrPreferredLeaderNotAvailable:        "Broker: Preferred leader was not available",
	ErrGroupMaxSizeReached:                "Broker: Consumer group has reached maximum size",
	ErrFencedInstanceID:                   "Broker: Static consumer fenced by other consumer with same group.instance.id",
	ErrEligibleLeadersNotAvailable:        "Broker: Eligible partition leaders are not available",
	ErrElectionNotNeeded:                  "Broker: Leader election not needed for topic partition",
	ErrNoReassignmentInProgress:           "Broker: No partition reassignment is in progress",
	ErrGroupSubscribedToTopic:             "Broker: Deleting offsets of a topic while the consumer group is subscribed to it",
	ErrInvalidRecord:                      "Broker: Broker failed to validate record",
	ErrUnstableOffsetCommit:               "Broker: There are unstable offsets that need to be cleared",
	ErrThrottlingQuotaExceeded:            "Broker: Throttling quota has been exceeded",
	ErrProducerFenced:                     "Broker: There is a newer producer with the same transactionalId which fences the current one",
	ErrResourceNotFound:                   "Broker: Request illegally referred to resource that does not exist",
	ErrDuplicateResource:                  "Broker: Request illegally referred to the same resource twice",
	ErrUnacceptableCredential:             "Broker: Requested credential would not meet criteria for acceptability",
	ErrInconsistentVoterSet:               "Broker: Indicates that the either the sender or recipient of a voter-only request is not one of the expected voters",
	ErrInvalidUpdateVersion:               "Broker: Invalid update version",
	ErrFeatureUpdateFailed:                "Broker: Unable to update finalized features due to server error",
	ErrPrincipalDeserializationFailure:    "Broker: Request principal deserialization failed during forwarding",
	ErrUnknownTopicID:                     "Broker: Unknown topic id",
	ErrInconsistentTopicID:                "Broker: The log's topic ID did not match the topic ID in the request",
	ErrFencedMemberEpoch:                  "Broker: The member epoch is fenced by the group coordinator",
	ErrUnreleasedInstanceID:               "Broker: The instance ID is still used by another member in the consumer group",
	ErrUnsupportedAssignor:                "Broker: The assignor or its version range is not supported by the consumer group",
	ErrStaleMemberEpoch:                   "Broker: The member epoch is stale",
	ErrMismatchedEndpointType:             "Broker: The request was sent to an endpoint of the wrong type",
	ErrUnsupportedEndpointType:            "Broker: This endpoint type is not supported yet",
	ErrUnknownControllerID:                "Broker: This controller ID is not known",
	ErrUnknownSubscriptionID:              "Broker: Client sent a push telemetry request with an invalid or outdated subscription ID",
	ErrTelemetryTooLarge:                  "Broker: Client sent a push telemetry request larger than the maximum size the broker will accept",
	ErrInvalidRegistration:                "Broker: The controller has considered the broker registration to be invalid",
	ErrTransactionAbortable:               "Broker: The server encountered an error with the transaction",
	ErrInvalidRecordState:                 "Broker: The record state is invalid",
	ErrShareSessionNotFound:               "Broker: The share session was not found",
	ErrInvalidShareSessionEpoch:           "Broker: The share session epoch is invalid",
	ErrFencedStateEpoch:                   "Broker: The share-group state epoch did not match",
	ErrInvalidVoterKey:                    "Broker: The voter key doesn't match the receiving replica's key",
	ErrDuplicateVoter:                     "Broker: The voter is already part of the set of voters",
	ErrVoterNotFound:                      "Broker: The voter is not part of the set of voters",
	ErrInvalidRegularExpression:           "Broker: The regular expression is not valid",
	ErrRebootstrapRequired:                "Broker: Client metadata is stale, client should rebootstrap to obtain new metadata",
	ErrStreamsInvalidTopology:             "Broker: The supplied topology is invalid",
	ErrStreamsInvalidTopologyEpoch:        "Broker: The supplied topology epoch is invalid",
	ErrStreamsTopologyFenced:              "Broker: The supplied topology epoch is outdated",
	ErrShareSessionLimitReached:           "Broker: The limit of share sessions has been reached",
}
