package protocol

import (
	"github.com/twmb/franz-go/pkg/kmsg"
)

// VersionRange is an inclusive range of API versions.
type VersionRange struct{ Min, Max int16 }

// clientRanges are the versions rollsafe speaks where it narrows what kmsg
// can encode. APIs not listed use 0..kmsg's MaxVersion.
var clientRanges = map[int16]VersionRange{
	0:  {3, 12}, // Produce: record batch v2 only; v13 addresses topics by id
	1:  {4, 12}, // Fetch: v4+ returns record batches v2; v13 addresses topics by id
	2:  {1, 11}, // ListOffsets
	3:  {1, 13}, // Metadata
	10: {0, 6},  // FindCoordinator
	17: {0, 1},  // SaslHandshake
	18: {0, 4},  // ApiVersions
	22: {0, 5},  // InitProducerId
	36: {0, 2},  // SaslAuthenticate
}

// ClientRange returns the versions this package speaks for API key, before
// any ConnConfig.MaxVersions cap. ok is false for keys kmsg does not know.
func ClientRange(key int16) (r VersionRange, ok bool) {
	if r, ok := clientRanges[key]; ok {
		return r, true
	}
	req := kmsg.RequestForKey(key)
	if req == nil {
		return VersionRange{}, false
	}
	return VersionRange{0, req.MaxVersion()}, true
}

// Versions is a broker's advertised API version ranges, from ApiVersions.
// It is immutable once the connection is established.
type Versions struct {
	broker map[int16]VersionRange
}

// Broker returns the broker's advertised range for key.
func (v *Versions) Broker(key int16) (VersionRange, bool) {
	if v == nil {
		return VersionRange{}, false
	}
	r, ok := v.broker[key]
	return r, ok
}

// Len returns how many APIs the broker advertised.
func (v *Versions) Len() int {
	if v == nil {
		return 0
	}
	return len(v.broker)
}

// pick returns the version to use for key: min(our max, broker max), checked
// against both minimums.
func (v *Versions) pick(key int16, caps map[int16]int16, addr string) (int16, error) {
	ours, ok := ClientRange(key)
	if c, capped := caps[key]; capped && c < ours.Max {
		ours.Max = c
	}
	br, has := v.Broker(key)
	verr := &VersionError{Key: key, API: kmsg.NameForKey(key), Addr: addr,
		OurMin: ours.Min, OurMax: ours.Max, BrokerMin: br.Min, BrokerMax: br.Max, BrokerHas: has}
	if !ok || !has {
		return 0, verr
	}
	use := min(ours.Max, br.Max)
	if use < ours.Min || use < br.Min {
		return 0, verr
	}
	return use, nil
}
