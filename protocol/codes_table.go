// Code generated from the Kafka error-code list (names, codes and retriability as
// defined by Apache Kafka's Errors enum); outcomes are rollsafe's classification.
// Edit the table by hand; keep it sorted by code.

package protocol

// Kafka error codes. The names match Apache Kafka's Errors enum.
const (
	NoError                                ErrorCode = 0   // NONE: no error
	UnknownServerError                     ErrorCode = -1  // UNKNOWN_SERVER_ERROR
	OffsetOutOfRange                       ErrorCode = 1   // OFFSET_OUT_OF_RANGE
	CorruptMessage                         ErrorCode = 2   // CORRUPT_MESSAGE
	UnknownTopicOrPartition                ErrorCode = 3   // UNKNOWN_TOPIC_OR_PARTITION
	InvalidFetchSize                       ErrorCode = 4   // INVALID_FETCH_SIZE
	LeaderNotAvailable                     ErrorCode = 5   // LEADER_NOT_AVAILABLE
	NotLeaderOrFollower                    ErrorCode = 6   // NOT_LEADER_OR_FOLLOWER
	RequestTimedOut                        ErrorCode = 7   // REQUEST_TIMED_OUT
	BrokerNotAvailable                     ErrorCode = 8   // BROKER_NOT_AVAILABLE
	ReplicaNotAvailable                    ErrorCode = 9   // REPLICA_NOT_AVAILABLE
	MessageTooLarge                        ErrorCode = 10  // MESSAGE_TOO_LARGE
	StaleControllerEpoch                   ErrorCode = 11  // STALE_CONTROLLER_EPOCH
	OffsetMetadataTooLarge                 ErrorCode = 12  // OFFSET_METADATA_TOO_LARGE
	NetworkException                       ErrorCode = 13  // NETWORK_EXCEPTION
	CoordinatorLoadInProgress              ErrorCode = 14  // COORDINATOR_LOAD_IN_PROGRESS
	CoordinatorNotAvailable                ErrorCode = 15  // COORDINATOR_NOT_AVAILABLE
	NotCoordinator                         ErrorCode = 16  // NOT_COORDINATOR
	InvalidTopicException                  ErrorCode = 17  // INVALID_TOPIC_EXCEPTION
	RecordListTooLarge                     ErrorCode = 18  // RECORD_LIST_TOO_LARGE
	NotEnoughReplicas                      ErrorCode = 19  // NOT_ENOUGH_REPLICAS
	NotEnoughReplicasAfterAppend           ErrorCode = 20  // NOT_ENOUGH_REPLICAS_AFTER_APPEND
	InvalidRequiredAcks                    ErrorCode = 21  // INVALID_REQUIRED_ACKS
	IllegalGeneration                      ErrorCode = 22  // ILLEGAL_GENERATION
	InconsistentGroupProtocol              ErrorCode = 23  // INCONSISTENT_GROUP_PROTOCOL
	InvalidGroupID                         ErrorCode = 24  // INVALID_GROUP_ID
	UnknownMemberID                        ErrorCode = 25  // UNKNOWN_MEMBER_ID
	InvalidSessionTimeout                  ErrorCode = 26  // INVALID_SESSION_TIMEOUT
	RebalanceInProgress                    ErrorCode = 27  // REBALANCE_IN_PROGRESS
	InvalidCommitOffsetSize                ErrorCode = 28  // INVALID_COMMIT_OFFSET_SIZE
	TopicAuthorizationFailed               ErrorCode = 29  // TOPIC_AUTHORIZATION_FAILED
	GroupAuthorizationFailed               ErrorCode = 30  // GROUP_AUTHORIZATION_FAILED
	ClusterAuthorizationFailed             ErrorCode = 31  // CLUSTER_AUTHORIZATION_FAILED
	InvalidTimestamp                       ErrorCode = 32  // INVALID_TIMESTAMP
	UnsupportedSaslMechanism               ErrorCode = 33  // UNSUPPORTED_SASL_MECHANISM
	IllegalSaslState                       ErrorCode = 34  // ILLEGAL_SASL_STATE
	UnsupportedVersion                     ErrorCode = 35  // UNSUPPORTED_VERSION
	TopicAlreadyExists                     ErrorCode = 36  // TOPIC_ALREADY_EXISTS
	InvalidPartitions                      ErrorCode = 37  // INVALID_PARTITIONS
	InvalidReplicationFactor               ErrorCode = 38  // INVALID_REPLICATION_FACTOR
	InvalidReplicaAssignment               ErrorCode = 39  // INVALID_REPLICA_ASSIGNMENT
	InvalidConfig                          ErrorCode = 40  // INVALID_CONFIG
	NotController                          ErrorCode = 41  // NOT_CONTROLLER
	InvalidRequest                         ErrorCode = 42  // INVALID_REQUEST
	UnsupportedForMessageFormat            ErrorCode = 43  // UNSUPPORTED_FOR_MESSAGE_FORMAT
	PolicyViolation                        ErrorCode = 44  // POLICY_VIOLATION
	OutOfOrderSequenceNumber               ErrorCode = 45  // OUT_OF_ORDER_SEQUENCE_NUMBER
	DuplicateSequenceNumber                ErrorCode = 46  // DUPLICATE_SEQUENCE_NUMBER
	InvalidProducerEpoch                   ErrorCode = 47  // INVALID_PRODUCER_EPOCH
	InvalidTxnState                        ErrorCode = 48  // INVALID_TXN_STATE
	InvalidProducerIDMapping               ErrorCode = 49  // INVALID_PRODUCER_ID_MAPPING
	InvalidTransactionTimeout              ErrorCode = 50  // INVALID_TRANSACTION_TIMEOUT
	ConcurrentTransactions                 ErrorCode = 51  // CONCURRENT_TRANSACTIONS
	TransactionCoordinatorFenced           ErrorCode = 52  // TRANSACTION_COORDINATOR_FENCED
	TransactionalIDAuthorizationFailed     ErrorCode = 53  // TRANSACTIONAL_ID_AUTHORIZATION_FAILED
	SecurityDisabled                       ErrorCode = 54  // SECURITY_DISABLED
	OperationNotAttempted                  ErrorCode = 55  // OPERATION_NOT_ATTEMPTED
	KafkaStorageError                      ErrorCode = 56  // KAFKA_STORAGE_ERROR
	LogDirNotFound                         ErrorCode = 57  // LOG_DIR_NOT_FOUND
	SaslAuthenticationFailed               ErrorCode = 58  // SASL_AUTHENTICATION_FAILED
	UnknownProducerID                      ErrorCode = 59  // UNKNOWN_PRODUCER_ID
	ReassignmentInProgress                 ErrorCode = 60  // REASSIGNMENT_IN_PROGRESS
	DelegationTokenAuthDisabled            ErrorCode = 61  // DELEGATION_TOKEN_AUTH_DISABLED
	DelegationTokenNotFound                ErrorCode = 62  // DELEGATION_TOKEN_NOT_FOUND
	DelegationTokenOwnerMismatch           ErrorCode = 63  // DELEGATION_TOKEN_OWNER_MISMATCH
	DelegationTokenRequestNotAllowed       ErrorCode = 64  // DELEGATION_TOKEN_REQUEST_NOT_ALLOWED
	DelegationTokenAuthorizationFailed     ErrorCode = 65  // DELEGATION_TOKEN_AUTHORIZATION_FAILED
	DelegationTokenExpired                 ErrorCode = 66  // DELEGATION_TOKEN_EXPIRED
	InvalidPrincipalType                   ErrorCode = 67  // INVALID_PRINCIPAL_TYPE
	NonEmptyGroup                          ErrorCode = 68  // NON_EMPTY_GROUP
	GroupIDNotFound                        ErrorCode = 69  // GROUP_ID_NOT_FOUND
	FetchSessionIDNotFound                 ErrorCode = 70  // FETCH_SESSION_ID_NOT_FOUND
	InvalidFetchSessionEpoch               ErrorCode = 71  // INVALID_FETCH_SESSION_EPOCH
	ListenerNotFound                       ErrorCode = 72  // LISTENER_NOT_FOUND
	TopicDeletionDisabled                  ErrorCode = 73  // TOPIC_DELETION_DISABLED
	FencedLeaderEpoch                      ErrorCode = 74  // FENCED_LEADER_EPOCH
	UnknownLeaderEpoch                     ErrorCode = 75  // UNKNOWN_LEADER_EPOCH
	UnsupportedCompressionType             ErrorCode = 76  // UNSUPPORTED_COMPRESSION_TYPE
	StaleBrokerEpoch                       ErrorCode = 77  // STALE_BROKER_EPOCH
	OffsetNotAvailable                     ErrorCode = 78  // OFFSET_NOT_AVAILABLE
	MemberIDRequired                       ErrorCode = 79  // MEMBER_ID_REQUIRED
	PreferredLeaderNotAvailable            ErrorCode = 80  // PREFERRED_LEADER_NOT_AVAILABLE
	GroupMaxSizeReached                    ErrorCode = 81  // GROUP_MAX_SIZE_REACHED
	FencedInstanceID                       ErrorCode = 82  // FENCED_INSTANCE_ID
	EligibleLeadersNotAvailable            ErrorCode = 83  // ELIGIBLE_LEADERS_NOT_AVAILABLE
	ElectionNotNeeded                      ErrorCode = 84  // ELECTION_NOT_NEEDED
	NoReassignmentInProgress               ErrorCode = 85  // NO_REASSIGNMENT_IN_PROGRESS
	GroupSubscribedToTopic                 ErrorCode = 86  // GROUP_SUBSCRIBED_TO_TOPIC
	InvalidRecord                          ErrorCode = 87  // INVALID_RECORD
	UnstableOffsetCommit                   ErrorCode = 88  // UNSTABLE_OFFSET_COMMIT
	ThrottlingQuotaExceeded                ErrorCode = 89  // THROTTLING_QUOTA_EXCEEDED
	ProducerFenced                         ErrorCode = 90  // PRODUCER_FENCED
	ResourceNotFound                       ErrorCode = 91  // RESOURCE_NOT_FOUND
	DuplicateResource                      ErrorCode = 92  // DUPLICATE_RESOURCE
	UnacceptableCredential                 ErrorCode = 93  // UNACCEPTABLE_CREDENTIAL
	InconsistentVoterSet                   ErrorCode = 94  // INCONSISTENT_VOTER_SET
	InvalidUpdateVersion                   ErrorCode = 95  // INVALID_UPDATE_VERSION
	FeatureUpdateFailed                    ErrorCode = 96  // FEATURE_UPDATE_FAILED
	PrincipalDeserializationFailure        ErrorCode = 97  // PRINCIPAL_DESERIALIZATION_FAILURE
	SnapshotNotFound                       ErrorCode = 98  // SNAPSHOT_NOT_FOUND
	PositionOutOfRange                     ErrorCode = 99  // POSITION_OUT_OF_RANGE
	UnknownTopicID                         ErrorCode = 100 // UNKNOWN_TOPIC_ID
	DuplicateBrokerRegistration            ErrorCode = 101 // DUPLICATE_BROKER_REGISTRATION
	BrokerIDNotRegistered                  ErrorCode = 102 // BROKER_ID_NOT_REGISTERED
	InconsistentTopicID                    ErrorCode = 103 // INCONSISTENT_TOPIC_ID
	InconsistentClusterID                  ErrorCode = 104 // INCONSISTENT_CLUSTER_ID
	TransactionalIDNotFound                ErrorCode = 105 // TRANSACTIONAL_ID_NOT_FOUND
	FetchSessionTopicIDError               ErrorCode = 106 // FETCH_SESSION_TOPIC_ID_ERROR
	IneligibleReplica                      ErrorCode = 107 // INELIGIBLE_REPLICA
	NewLeaderElected                       ErrorCode = 108 // NEW_LEADER_ELECTED
	OffsetMovedToTieredStorage             ErrorCode = 109 // OFFSET_MOVED_TO_TIERED_STORAGE
	FencedMemberEpoch                      ErrorCode = 110 // FENCED_MEMBER_EPOCH
	UnreleasedInstanceID                   ErrorCode = 111 // UNRELEASED_INSTANCE_ID
	UnsupportedAssignor                    ErrorCode = 112 // UNSUPPORTED_ASSIGNOR
	StaleMemberEpoch                       ErrorCode = 113 // STALE_MEMBER_EPOCH
	MismatchedEndpointType                 ErrorCode = 114 // MISMATCHED_ENDPOINT_TYPE
	UnsupportedEndpointType                ErrorCode = 115 // UNSUPPORTED_ENDPOINT_TYPE
	UnknownControllerID                    ErrorCode = 116 // UNKNOWN_CONTROLLER_ID
	UnknownSubscriptionID                  ErrorCode = 117 // UNKNOWN_SUBSCRIPTION_ID
	TelemetryTooLarge                      ErrorCode = 118 // TELEMETRY_TOO_LARGE
	InvalidRegistration                    ErrorCode = 119 // INVALID_REGISTRATION
	TransactionAbortable                   ErrorCode = 120 // TRANSACTION_ABORTABLE
	InvalidRecordState                     ErrorCode = 121 // INVALID_RECORD_STATE
	ShareSessionNotFound                   ErrorCode = 122 // SHARE_SESSION_NOT_FOUND
	InvalidShareSessionEpoch               ErrorCode = 123 // INVALID_SHARE_SESSION_EPOCH
	FencedStateEpoch                       ErrorCode = 124 // FENCED_STATE_EPOCH
	InvalidVoterKey                        ErrorCode = 125 // INVALID_VOTER_KEY
	DuplicateVoter                         ErrorCode = 126 // DUPLICATE_VOTER
	VoterNotFound                          ErrorCode = 127 // VOTER_NOT_FOUND
	InvalidRegularExpression               ErrorCode = 128 // INVALID_REGULAR_EXPRESSION
	RebootstrapRequired                    ErrorCode = 129 // REBOOTSTRAP_REQUIRED
	StreamsInvalidTopology                 ErrorCode = 130 // STREAMS_INVALID_TOPOLOGY
	StreamsInvalidTopologyEpoch            ErrorCode = 131 // STREAMS_INVALID_TOPOLOGY_EPOCH
	StreamsTopologyFenced                  ErrorCode = 132 // STREAMS_TOPOLOGY_FENCED
	ShareSessionLimitReached               ErrorCode = 133 // SHARE_SESSION_LIMIT_REACHED
	GroupDeletionFailed                    ErrorCode = 134 // GROUP_DELETION_FAILED
	StreamsTopologyDescriptionUpdateFailed ErrorCode = 135 // STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED
	ControllerIDNotRegistered              ErrorCode = 136 // CONTROLLER_ID_NOT_REGISTERED
)

// codeTable lists every known code; lookups go through codeIndex.
var codeTable = [...]codeInfo{
	{UnknownServerError, "UNKNOWN_SERVER_ERROR", false, OutcomeMaybeAppended},
	{NoError, "NONE", false, OutcomeAppended},
	{OffsetOutOfRange, "OFFSET_OUT_OF_RANGE", false, OutcomeNotAppended},
	{CorruptMessage, "CORRUPT_MESSAGE", true, OutcomeNotAppended},
	{UnknownTopicOrPartition, "UNKNOWN_TOPIC_OR_PARTITION", true, OutcomeNotAppended},
	{InvalidFetchSize, "INVALID_FETCH_SIZE", false, OutcomeNotAppended},
	{LeaderNotAvailable, "LEADER_NOT_AVAILABLE", true, OutcomeNotAppended},
	{NotLeaderOrFollower, "NOT_LEADER_OR_FOLLOWER", true, OutcomeNotAppended},
	{RequestTimedOut, "REQUEST_TIMED_OUT", true, OutcomeMaybeAppended},
	{BrokerNotAvailable, "BROKER_NOT_AVAILABLE", true, OutcomeNotAppended},
	{ReplicaNotAvailable, "REPLICA_NOT_AVAILABLE", true, OutcomeNotAppended},
	{MessageTooLarge, "MESSAGE_TOO_LARGE", false, OutcomeNotAppended},
	{StaleControllerEpoch, "STALE_CONTROLLER_EPOCH", false, OutcomeNotAppended},
	{OffsetMetadataTooLarge, "OFFSET_METADATA_TOO_LARGE", false, OutcomeNotAppended},
	{NetworkException, "NETWORK_EXCEPTION", true, OutcomeMaybeAppended},
	{CoordinatorLoadInProgress, "COORDINATOR_LOAD_IN_PROGRESS", true, OutcomeNotAppended},
	{CoordinatorNotAvailable, "COORDINATOR_NOT_AVAILABLE", true, OutcomeNotAppended},
	{NotCoordinator, "NOT_COORDINATOR", true, OutcomeNotAppended},
	{InvalidTopicException, "INVALID_TOPIC_EXCEPTION", false, OutcomeNotAppended},
	{RecordListTooLarge, "RECORD_LIST_TOO_LARGE", false, OutcomeNotAppended},
	{NotEnoughReplicas, "NOT_ENOUGH_REPLICAS", true, OutcomeNotAppended},
	{NotEnoughReplicasAfterAppend, "NOT_ENOUGH_REPLICAS_AFTER_APPEND", true, OutcomeMaybeAppended},
	{InvalidRequiredAcks, "INVALID_REQUIRED_ACKS", false, OutcomeNotAppended},
	{IllegalGeneration, "ILLEGAL_GENERATION", false, OutcomeNotAppended},
	{InconsistentGroupProtocol, "INCONSISTENT_GROUP_PROTOCOL", false, OutcomeNotAppended},
	{InvalidGroupID, "INVALID_GROUP_ID", false, OutcomeNotAppended},
	{UnknownMemberID, "UNKNOWN_MEMBER_ID", false, OutcomeNotAppended},
	{InvalidSessionTimeout, "INVALID_SESSION_TIMEOUT", false, OutcomeNotAppended},
	{RebalanceInProgress, "REBALANCE_IN_PROGRESS", false, OutcomeNotAppended},
	{InvalidCommitOffsetSize, "INVALID_COMMIT_OFFSET_SIZE", false, OutcomeNotAppended},
	{TopicAuthorizationFailed, "TOPIC_AUTHORIZATION_FAILED", false, OutcomeNotAppended},
	{GroupAuthorizationFailed, "GROUP_AUTHORIZATION_FAILED", false, OutcomeNotAppended},
	{ClusterAuthorizationFailed, "CLUSTER_AUTHORIZATION_FAILED", false, OutcomeNotAppended},
	{InvalidTimestamp, "INVALID_TIMESTAMP", false, OutcomeNotAppended},
	{UnsupportedSaslMechanism, "UNSUPPORTED_SASL_MECHANISM", false, OutcomeNotAppended},
	{IllegalSaslState, "ILLEGAL_SASL_STATE", false, OutcomeNotAppended},
	{UnsupportedVersion, "UNSUPPORTED_VERSION", false, OutcomeNotAppended},
	{TopicAlreadyExists, "TOPIC_ALREADY_EXISTS", false, OutcomeNotAppended},
	{InvalidPartitions, "INVALID_PARTITIONS", false, OutcomeNotAppended},
	{InvalidReplicationFactor, "INVALID_REPLICATION_FACTOR", false, OutcomeNotAppended},
	{InvalidReplicaAssignment, "INVALID_REPLICA_ASSIGNMENT", false, OutcomeNotAppended},
	{InvalidConfig, "INVALID_CONFIG", false, OutcomeNotAppended},
	{NotController, "NOT_CONTROLLER", true, OutcomeNotAppended},
	{InvalidRequest, "INVALID_REQUEST", false, OutcomeNotAppended},
	{UnsupportedForMessageFormat, "UNSUPPORTED_FOR_MESSAGE_FORMAT", false, OutcomeNotAppended},
	{PolicyViolation, "POLICY_VIOLATION", false, OutcomeNotAppended},
	{OutOfOrderSequenceNumber, "OUT_OF_ORDER_SEQUENCE_NUMBER", false, OutcomeNotAppended},
	{DuplicateSequenceNumber, "DUPLICATE_SEQUENCE_NUMBER", false, OutcomeAppended},
	{InvalidProducerEpoch, "INVALID_PRODUCER_EPOCH", false, OutcomeNotAppended},
	{InvalidTxnState, "INVALID_TXN_STATE", false, OutcomeNotAppended},
	{InvalidProducerIDMapping, "INVALID_PRODUCER_ID_MAPPING", false, OutcomeNotAppended},
	{InvalidTransactionTimeout, "INVALID_TRANSACTION_TIMEOUT", false, OutcomeNotAppended},
	{ConcurrentTransactions, "CONCURRENT_TRANSACTIONS", false, OutcomeNotAppended},
	{TransactionCoordinatorFenced, "TRANSACTION_COORDINATOR_FENCED", false, OutcomeNotAppended},
	{TransactionalIDAuthorizationFailed, "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", false, OutcomeNotAppended},
	{SecurityDisabled, "SECURITY_DISABLED", false, OutcomeNotAppended},
	{OperationNotAttempted, "OPERATION_NOT_ATTEMPTED", false, OutcomeNotAppended},
	{KafkaStorageError, "KAFKA_STORAGE_ERROR", true, OutcomeMaybeAppended},
	{LogDirNotFound, "LOG_DIR_NOT_FOUND", false, OutcomeNotAppended},
	{SaslAuthenticationFailed, "SASL_AUTHENTICATION_FAILED", false, OutcomeNotAppended},
	{UnknownProducerID, "UNKNOWN_PRODUCER_ID", false, OutcomeNotAppended},
	{ReassignmentInProgress, "REASSIGNMENT_IN_PROGRESS", false, OutcomeNotAppended},
	{DelegationTokenAuthDisabled, "DELEGATION_TOKEN_AUTH_DISABLED", false, OutcomeNotAppended},
	{DelegationTokenNotFound, "DELEGATION_TOKEN_NOT_FOUND", false, OutcomeNotAppended},
	{DelegationTokenOwnerMismatch, "DELEGATION_TOKEN_OWNER_MISMATCH", false, OutcomeNotAppended},
	{DelegationTokenRequestNotAllowed, "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED", false, OutcomeNotAppended},
	{DelegationTokenAuthorizationFailed, "DELEGATION_TOKEN_AUTHORIZATION_FAILED", false, OutcomeNotAppended},
	{DelegationTokenExpired, "DELEGATION_TOKEN_EXPIRED", false, OutcomeNotAppended},
	{InvalidPrincipalType, "INVALID_PRINCIPAL_TYPE", false, OutcomeNotAppended},
	{NonEmptyGroup, "NON_EMPTY_GROUP", false, OutcomeNotAppended},
	{GroupIDNotFound, "GROUP_ID_NOT_FOUND", false, OutcomeNotAppended},
	{FetchSessionIDNotFound, "FETCH_SESSION_ID_NOT_FOUND", true, OutcomeNotAppended},
	{InvalidFetchSessionEpoch, "INVALID_FETCH_SESSION_EPOCH", true, OutcomeNotAppended},
	{ListenerNotFound, "LISTENER_NOT_FOUND", true, OutcomeNotAppended},
	{TopicDeletionDisabled, "TOPIC_DELETION_DISABLED", false, OutcomeNotAppended},
	{FencedLeaderEpoch, "FENCED_LEADER_EPOCH", true, OutcomeNotAppended},
	{UnknownLeaderEpoch, "UNKNOWN_LEADER_EPOCH", true, OutcomeNotAppended},
	{UnsupportedCompressionType, "UNSUPPORTED_COMPRESSION_TYPE", false, OutcomeNotAppended},
	{StaleBrokerEpoch, "STALE_BROKER_EPOCH", false, OutcomeNotAppended},
	{OffsetNotAvailable, "OFFSET_NOT_AVAILABLE", true, OutcomeNotAppended},
	{MemberIDRequired, "MEMBER_ID_REQUIRED", false, OutcomeNotAppended},
	{PreferredLeaderNotAvailable, "PREFERRED_LEADER_NOT_AVAILABLE", true, OutcomeNotAppended},
	{GroupMaxSizeReached, "GROUP_MAX_SIZE_REACHED", false, OutcomeNotAppended},
	{FencedInstanceID, "FENCED_INSTANCE_ID", false, OutcomeNotAppended},
	{EligibleLeadersNotAvailable, "ELIGIBLE_LEADERS_NOT_AVAILABLE", true, OutcomeNotAppended},
	{ElectionNotNeeded, "ELECTION_NOT_NEEDED", true, OutcomeNotAppended},
	{NoReassignmentInProgress, "NO_REASSIGNMENT_IN_PROGRESS", false, OutcomeNotAppended},
	{GroupSubscribedToTopic, "GROUP_SUBSCRIBED_TO_TOPIC", false, OutcomeNotAppended},
	{InvalidRecord, "INVALID_RECORD", false, OutcomeNotAppended},
	{UnstableOffsetCommit, "UNSTABLE_OFFSET_COMMIT", true, OutcomeNotAppended},
	{ThrottlingQuotaExceeded, "THROTTLING_QUOTA_EXCEEDED", true, OutcomeNotAppended},
	{ProducerFenced, "PRODUCER_FENCED", false, OutcomeNotAppended},
	{ResourceNotFound, "RESOURCE_NOT_FOUND", false, OutcomeNotAppended},
	{DuplicateResource, "DUPLICATE_RESOURCE", false, OutcomeNotAppended},
	{UnacceptableCredential, "UNACCEPTABLE_CREDENTIAL", false, OutcomeNotAppended},
	{InconsistentVoterSet, "INCONSISTENT_VOTER_SET", false, OutcomeNotAppended},
	{InvalidUpdateVersion, "INVALID_UPDATE_VERSION", false, OutcomeNotAppended},
	{FeatureUpdateFailed, "FEATURE_UPDATE_FAILED", false, OutcomeNotAppended},
	{PrincipalDeserializationFailure, "PRINCIPAL_DESERIALIZATION_FAILURE", false, OutcomeNotAppended},
	{SnapshotNotFound, "SNAPSHOT_NOT_FOUND", false, OutcomeNotAppended},
	{PositionOutOfRange, "POSITION_OUT_OF_RANGE", false, OutcomeNotAppended},
	{UnknownTopicID, "UNKNOWN_TOPIC_ID", true, OutcomeNotAppended},
	{DuplicateBrokerRegistration, "DUPLICATE_BROKER_REGISTRATION", false, OutcomeNotAppended},
	{BrokerIDNotRegistered, "BROKER_ID_NOT_REGISTERED", false, OutcomeNotAppended},
	{InconsistentTopicID, "INCONSISTENT_TOPIC_ID", true, OutcomeNotAppended},
	{InconsistentClusterID, "INCONSISTENT_CLUSTER_ID", false, OutcomeNotAppended},
	{TransactionalIDNotFound, "TRANSACTIONAL_ID_NOT_FOUND", false, OutcomeNotAppended},
	{FetchSessionTopicIDError, "FETCH_SESSION_TOPIC_ID_ERROR", true, OutcomeNotAppended},
	{IneligibleReplica, "INELIGIBLE_REPLICA", false, OutcomeNotAppended},
	{NewLeaderElected, "NEW_LEADER_ELECTED", false, OutcomeNotAppended},
	{OffsetMovedToTieredStorage, "OFFSET_MOVED_TO_TIERED_STORAGE", false, OutcomeNotAppended},
	{FencedMemberEpoch, "FENCED_MEMBER_EPOCH", false, OutcomeNotAppended},
	{UnreleasedInstanceID, "UNRELEASED_INSTANCE_ID", false, OutcomeNotAppended},
	{UnsupportedAssignor, "UNSUPPORTED_ASSIGNOR", false, OutcomeNotAppended},
	{StaleMemberEpoch, "STALE_MEMBER_EPOCH", false, OutcomeNotAppended},
	{MismatchedEndpointType, "MISMATCHED_ENDPOINT_TYPE", false, OutcomeNotAppended},
	{UnsupportedEndpointType, "UNSUPPORTED_ENDPOINT_TYPE", false, OutcomeNotAppended},
	{UnknownControllerID, "UNKNOWN_CONTROLLER_ID", false, OutcomeNotAppended},
	{UnknownSubscriptionID, "UNKNOWN_SUBSCRIPTION_ID", false, OutcomeNotAppended},
	{TelemetryTooLarge, "TELEMETRY_TOO_LARGE", false, OutcomeNotAppended},
	{InvalidRegistration, "INVALID_REGISTRATION", false, OutcomeNotAppended},
	{TransactionAbortable, "TRANSACTION_ABORTABLE", false, OutcomeNotAppended},
	{InvalidRecordState, "INVALID_RECORD_STATE", false, OutcomeNotAppended},
	{ShareSessionNotFound, "SHARE_SESSION_NOT_FOUND", false, OutcomeNotAppended},
	{InvalidShareSessionEpoch, "INVALID_SHARE_SESSION_EPOCH", false, OutcomeNotAppended},
	{FencedStateEpoch, "FENCED_STATE_EPOCH", false, OutcomeNotAppended},
	{InvalidVoterKey, "INVALID_VOTER_KEY", false, OutcomeNotAppended},
	{DuplicateVoter, "DUPLICATE_VOTER", false, OutcomeNotAppended},
	{VoterNotFound, "VOTER_NOT_FOUND", false, OutcomeNotAppended},
	{InvalidRegularExpression, "INVALID_REGULAR_EXPRESSION", false, OutcomeNotAppended},
	{RebootstrapRequired, "REBOOTSTRAP_REQUIRED", false, OutcomeNotAppended},
	{StreamsInvalidTopology, "STREAMS_INVALID_TOPOLOGY", false, OutcomeNotAppended},
	{StreamsInvalidTopologyEpoch, "STREAMS_INVALID_TOPOLOGY_EPOCH", false, OutcomeNotAppended},
	{StreamsTopologyFenced, "STREAMS_TOPOLOGY_FENCED", false, OutcomeNotAppended},
	{ShareSessionLimitReached, "SHARE_SESSION_LIMIT_REACHED", true, OutcomeNotAppended},
	{GroupDeletionFailed, "GROUP_DELETION_FAILED", false, OutcomeNotAppended},
	{StreamsTopologyDescriptionUpdateFailed, "STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED", false, OutcomeNotAppended},
	{ControllerIDNotRegistered, "CONTROLLER_ID_NOT_REGISTERED", false, OutcomeNotAppended},
}

// Sentinel errors, one per non-zero code. ErrorForCode returns these values, and
// any *KafkaError with the same code matches them under errors.Is.
var (
	ErrUnknownServerError                     = sentinel(UnknownServerError)
	ErrOffsetOutOfRange                       = sentinel(OffsetOutOfRange)
	ErrCorruptMessage                         = sentinel(CorruptMessage)
	ErrUnknownTopicOrPartition                = sentinel(UnknownTopicOrPartition)
	ErrInvalidFetchSize                       = sentinel(InvalidFetchSize)
	ErrLeaderNotAvailable                     = sentinel(LeaderNotAvailable)
	ErrNotLeaderOrFollower                    = sentinel(NotLeaderOrFollower)
	ErrRequestTimedOut                        = sentinel(RequestTimedOut)
	ErrBrokerNotAvailable                     = sentinel(BrokerNotAvailable)
	ErrReplicaNotAvailable                    = sentinel(ReplicaNotAvailable)
	ErrMessageTooLarge                        = sentinel(MessageTooLarge)
	ErrStaleControllerEpoch                   = sentinel(StaleControllerEpoch)
	ErrOffsetMetadataTooLarge                 = sentinel(OffsetMetadataTooLarge)
	ErrNetworkException                       = sentinel(NetworkException)
	ErrCoordinatorLoadInProgress              = sentinel(CoordinatorLoadInProgress)
	ErrCoordinatorNotAvailable                = sentinel(CoordinatorNotAvailable)
	ErrNotCoordinator                         = sentinel(NotCoordinator)
	ErrInvalidTopicException                  = sentinel(InvalidTopicException)
	ErrRecordListTooLarge                     = sentinel(RecordListTooLarge)
	ErrNotEnoughReplicas                      = sentinel(NotEnoughReplicas)
	ErrNotEnoughReplicasAfterAppend           = sentinel(NotEnoughReplicasAfterAppend)
	ErrInvalidRequiredAcks                    = sentinel(InvalidRequiredAcks)
	ErrIllegalGeneration                      = sentinel(IllegalGeneration)
	ErrInconsistentGroupProtocol              = sentinel(InconsistentGroupProtocol)
	ErrInvalidGroupID                         = sentinel(InvalidGroupID)
	ErrUnknownMemberID                        = sentinel(UnknownMemberID)
	ErrInvalidSessionTimeout                  = sentinel(InvalidSessionTimeout)
	ErrRebalanceInProgress                    = sentinel(RebalanceInProgress)
	ErrInvalidCommitOffsetSize                = sentinel(InvalidCommitOffsetSize)
	ErrTopicAuthorizationFailed               = sentinel(TopicAuthorizationFailed)
	ErrGroupAuthorizationFailed               = sentinel(GroupAuthorizationFailed)
	ErrClusterAuthorizationFailed             = sentinel(ClusterAuthorizationFailed)
	ErrInvalidTimestamp                       = sentinel(InvalidTimestamp)
	ErrUnsupportedSaslMechanism               = sentinel(UnsupportedSaslMechanism)
	ErrIllegalSaslState                       = sentinel(IllegalSaslState)
	ErrUnsupportedVersion                     = sentinel(UnsupportedVersion)
	ErrTopicAlreadyExists                     = sentinel(TopicAlreadyExists)
	ErrInvalidPartitions                      = sentinel(InvalidPartitions)
	ErrInvalidReplicationFactor               = sentinel(InvalidReplicationFactor)
	ErrInvalidReplicaAssignment               = sentinel(InvalidReplicaAssignment)
	ErrInvalidConfig                          = sentinel(InvalidConfig)
	ErrNotController                          = sentinel(NotController)
	ErrInvalidRequest                         = sentinel(InvalidRequest)
	ErrUnsupportedForMessageFormat            = sentinel(UnsupportedForMessageFormat)
	ErrPolicyViolation                        = sentinel(PolicyViolation)
	ErrOutOfOrderSequenceNumber               = sentinel(OutOfOrderSequenceNumber)
	ErrDuplicateSequenceNumber                = sentinel(DuplicateSequenceNumber)
	ErrInvalidProducerEpoch                   = sentinel(InvalidProducerEpoch)
	ErrInvalidTxnState                        = sentinel(InvalidTxnState)
	ErrInvalidProducerIDMapping               = sentinel(InvalidProducerIDMapping)
	ErrInvalidTransactionTimeout              = sentinel(InvalidTransactionTimeout)
	ErrConcurrentTransactions                 = sentinel(ConcurrentTransactions)
	ErrTransactionCoordinatorFenced           = sentinel(TransactionCoordinatorFenced)
	ErrTransactionalIDAuthorizationFailed     = sentinel(TransactionalIDAuthorizationFailed)
	ErrSecurityDisabled                       = sentinel(SecurityDisabled)
	ErrOperationNotAttempted                  = sentinel(OperationNotAttempted)
	ErrKafkaStorageError                      = sentinel(KafkaStorageError)
	ErrLogDirNotFound                         = sentinel(LogDirNotFound)
	ErrSaslAuthenticationFailed               = sentinel(SaslAuthenticationFailed)
	ErrUnknownProducerID                      = sentinel(UnknownProducerID)
	ErrReassignmentInProgress                 = sentinel(ReassignmentInProgress)
	ErrDelegationTokenAuthDisabled            = sentinel(DelegationTokenAuthDisabled)
	ErrDelegationTokenNotFound                = sentinel(DelegationTokenNotFound)
	ErrDelegationTokenOwnerMismatch           = sentinel(DelegationTokenOwnerMismatch)
	ErrDelegationTokenRequestNotAllowed       = sentinel(DelegationTokenRequestNotAllowed)
	ErrDelegationTokenAuthorizationFailed     = sentinel(DelegationTokenAuthorizationFailed)
	ErrDelegationTokenExpired                 = sentinel(DelegationTokenExpired)
	ErrInvalidPrincipalType                   = sentinel(InvalidPrincipalType)
	ErrNonEmptyGroup                          = sentinel(NonEmptyGroup)
	ErrGroupIDNotFound                        = sentinel(GroupIDNotFound)
	ErrFetchSessionIDNotFound                 = sentinel(FetchSessionIDNotFound)
	ErrInvalidFetchSessionEpoch               = sentinel(InvalidFetchSessionEpoch)
	ErrListenerNotFound                       = sentinel(ListenerNotFound)
	ErrTopicDeletionDisabled                  = sentinel(TopicDeletionDisabled)
	ErrFencedLeaderEpoch                      = sentinel(FencedLeaderEpoch)
	ErrUnknownLeaderEpoch                     = sentinel(UnknownLeaderEpoch)
	ErrUnsupportedCompressionType             = sentinel(UnsupportedCompressionType)
	ErrStaleBrokerEpoch                       = sentinel(StaleBrokerEpoch)
	ErrOffsetNotAvailable                     = sentinel(OffsetNotAvailable)
	ErrMemberIDRequired                       = sentinel(MemberIDRequired)
	ErrPreferredLeaderNotAvailable            = sentinel(PreferredLeaderNotAvailable)
	ErrGroupMaxSizeReached                    = sentinel(GroupMaxSizeReached)
	ErrFencedInstanceID                       = sentinel(FencedInstanceID)
	ErrEligibleLeadersNotAvailable            = sentinel(EligibleLeadersNotAvailable)
	ErrElectionNotNeeded                      = sentinel(ElectionNotNeeded)
	ErrNoReassignmentInProgress               = sentinel(NoReassignmentInProgress)
	ErrGroupSubscribedToTopic                 = sentinel(GroupSubscribedToTopic)
	ErrInvalidRecord                          = sentinel(InvalidRecord)
	ErrUnstableOffsetCommit                   = sentinel(UnstableOffsetCommit)
	ErrThrottlingQuotaExceeded                = sentinel(ThrottlingQuotaExceeded)
	ErrProducerFenced                         = sentinel(ProducerFenced)
	ErrResourceNotFound                       = sentinel(ResourceNotFound)
	ErrDuplicateResource                      = sentinel(DuplicateResource)
	ErrUnacceptableCredential                 = sentinel(UnacceptableCredential)
	ErrInconsistentVoterSet                   = sentinel(InconsistentVoterSet)
	ErrInvalidUpdateVersion                   = sentinel(InvalidUpdateVersion)
	ErrFeatureUpdateFailed                    = sentinel(FeatureUpdateFailed)
	ErrPrincipalDeserializationFailure        = sentinel(PrincipalDeserializationFailure)
	ErrSnapshotNotFound                       = sentinel(SnapshotNotFound)
	ErrPositionOutOfRange                     = sentinel(PositionOutOfRange)
	ErrUnknownTopicID                         = sentinel(UnknownTopicID)
	ErrDuplicateBrokerRegistration            = sentinel(DuplicateBrokerRegistration)
	ErrBrokerIDNotRegistered                  = sentinel(BrokerIDNotRegistered)
	ErrInconsistentTopicID                    = sentinel(InconsistentTopicID)
	ErrInconsistentClusterID                  = sentinel(InconsistentClusterID)
	ErrTransactionalIDNotFound                = sentinel(TransactionalIDNotFound)
	ErrFetchSessionTopicIDError               = sentinel(FetchSessionTopicIDError)
	ErrIneligibleReplica                      = sentinel(IneligibleReplica)
	ErrNewLeaderElected                       = sentinel(NewLeaderElected)
	ErrOffsetMovedToTieredStorage             = sentinel(OffsetMovedToTieredStorage)
	ErrFencedMemberEpoch                      = sentinel(FencedMemberEpoch)
	ErrUnreleasedInstanceID                   = sentinel(UnreleasedInstanceID)
	ErrUnsupportedAssignor                    = sentinel(UnsupportedAssignor)
	ErrStaleMemberEpoch                       = sentinel(StaleMemberEpoch)
	ErrMismatchedEndpointType                 = sentinel(MismatchedEndpointType)
	ErrUnsupportedEndpointType                = sentinel(UnsupportedEndpointType)
	ErrUnknownControllerID                    = sentinel(UnknownControllerID)
	ErrUnknownSubscriptionID                  = sentinel(UnknownSubscriptionID)
	ErrTelemetryTooLarge                      = sentinel(TelemetryTooLarge)
	ErrInvalidRegistration                    = sentinel(InvalidRegistration)
	ErrTransactionAbortable                   = sentinel(TransactionAbortable)
	ErrInvalidRecordState                     = sentinel(InvalidRecordState)
	ErrShareSessionNotFound                   = sentinel(ShareSessionNotFound)
	ErrInvalidShareSessionEpoch               = sentinel(InvalidShareSessionEpoch)
	ErrFencedStateEpoch                       = sentinel(FencedStateEpoch)
	ErrInvalidVoterKey                        = sentinel(InvalidVoterKey)
	ErrDuplicateVoter                         = sentinel(DuplicateVoter)
	ErrVoterNotFound                          = sentinel(VoterNotFound)
	ErrInvalidRegularExpression               = sentinel(InvalidRegularExpression)
	ErrRebootstrapRequired                    = sentinel(RebootstrapRequired)
	ErrStreamsInvalidTopology                 = sentinel(StreamsInvalidTopology)
	ErrStreamsInvalidTopologyEpoch            = sentinel(StreamsInvalidTopologyEpoch)
	ErrStreamsTopologyFenced                  = sentinel(StreamsTopologyFenced)
	ErrShareSessionLimitReached               = sentinel(ShareSessionLimitReached)
	ErrGroupDeletionFailed                    = sentinel(GroupDeletionFailed)
	ErrStreamsTopologyDescriptionUpdateFailed = sentinel(StreamsTopologyDescriptionUpdateFailed)
	ErrControllerIDNotRegistered              = sentinel(ControllerIDNotRegistered)
)
