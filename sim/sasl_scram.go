package sim

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"hash"
	"strconv"
	"strings"
)

// scramBackend holds one SCRAM mechanism's hash and stored credentials
// (RFC 5802; SCRAM-SHA-256 is RFC 7677).
type scramBackend struct {
	name  string
	hash  func() hash.Hash
	users map[string]scramCred
}

// scramCred is what a SCRAM server keeps of a password.
type scramCred struct {
	salt       []byte
	iterations int
	storedKey  []byte // H(ClientKey)
	serverKey  []byte // HMAC(SaltedPassword, "Server Key")
}

func newScramBackend(mech string) *scramBackend {
	h := sha256.New
	if mech == MechScramSHA512 {
		h = sha512.New
	}
	return &scramBackend{name: mech, hash: h, users: map[string]scramCred{}}
}

func (b *scramBackend) hmac(key []byte, parts ...string) []byte {
	m := hmac.New(b.hash, key)
	for _, p := range parts {
		m.Write([]byte(p))
	}
	return m.Sum(nil)
}

// derive salts password: SaltedPassword = PBKDF2(HMAC-H, password, salt, i).
func (b *scramBackend) derive(password string, salt []byte, iterations int) (scramCred, error) {
	salted, err := pbkdf2.Key(b.hash, password, salt, iterations, b.hash().Size())
	if err != nil {
		return scramCred{}, err
	}
	clientKey := b.hmac(salted, "Client Key")
	h := b.hash()
	h.Write(clientKey)
	return scramCred{
		salt:       salt,
		iterations: iterations,
		storedKey:  h.Sum(nil),
		serverKey:  b.hmac(salted, "Server Key"),
	}, nil
}

// scramExchange is the server side of one SCRAM authentication:
// client-first, server-first, client-final, server-final.
type scramExchange struct {
	b               *scramBackend
	stage           int // 0: want client-first; 1: want client-final; 2: done
	gs2             string
	clientFirstBare string
	serverFirst     string
	nonce           string
	user            string
	cred            scramCred
}

func (s *scramExchange) principal() string { return s.user }

func (s *scramExchange) fail(format string, args ...any) ([]byte, bool, error) {
	s.stage = 3
	return nil, false, fmt.Errorf("%w: %s: %s", ErrAuthentication, s.b.name, fmt.Sprintf(format, args...))
}

func (s *scramExchange) step(in []byte) ([]byte, bool, error) {
	switch s.stage {
	case 0:
		return s.clientFirst(string(in))
	case 1:
		return s.clientFinal(string(in))
	}
	return s.fail("message after the exchange ended")
}

// clientFirst parses gs2-header client-first-message-bare:
// "n,[a=authzid],n=user,r=cnonce[,ext...]".
func (s *scramExchange) clientFirst(msg string) ([]byte, bool, error) {
	cb, rest, ok := strings.Cut(msg, ",")
	if !ok {
		return s.fail("malformed client-first message")
	}
	switch {
	case cb == "n" || cb == "y":
	case strings.HasPrefix(cb, "p="):
		return s.fail("channel binding is not supported")
	default:
		return s.fail("malformed channel binding flag")
	}
	authz, bare, ok := strings.Cut(rest, ",")
	if !ok {
		return s.fail("malformed client-first message")
	}
	s.gs2 = cb + "," + authz + ","
	s.clientFirstBare = bare
	attrs := strings.Split(bare, ",")
	if len(attrs) < 2 || !strings.HasPrefix(attrs[0], "n=") || !strings.HasPrefix(attrs[1], "r=") {
		if len(attrs) > 0 && strings.HasPrefix(attrs[0], "m=") {
			return s.fail("mandatory extension not supported")
		}
		return s.fail("client-first message lacks user or nonce")
	}
	user, err := scramUnescape(attrs[0][2:])
	if err != nil || user == "" {
		return s.fail("malformed user name")
	}
	if authz != "" {
		z, err := scramUnescape(strings.TrimPrefix(authz, "a="))
		if !strings.HasPrefix(authz, "a=") || err != nil || z != user {
			return s.fail("authorization id differs from the user")
		}
	}
	cnonce := attrs[1][2:]
	if !validNonce(cnonce) {
		return s.fail("malformed client nonce")
	}
	// Extensions (Kafka's "tokenauth=true" among them) are accepted
	// and ignored.
	for _, ext := range attrs[2:] {
		if k, _, ok := strings.Cut(ext, "="); !ok || k == "" {
			return s.fail("malformed extension")
		}
	}
	cred, ok := s.b.users[user]
	if !ok {
		return s.fail("unknown user")
	}
	var snonce [18]byte
	if _, err := rand.Read(snonce[:]); err != nil {
		return s.fail("server nonce: %v", err)
	}
	s.user, s.cred = user, cred
	s.nonce = cnonce + base64.RawURLEncoding.EncodeToString(snonce[:])
	s.serverFirst = "r=" + s.nonce + ",s=" + base64.StdEncoding.EncodeToString(cred.salt) + ",i=" + strconv.Itoa(cred.iterations)
	s.stage = 1
	return []byte(s.serverFirst), false, nil
}

// clientFinal parses "c=biws,r=nonce[,ext...],p=proof", verifies the proof
// and answers "v=serversignature".
func (s *scramExchange) clientFinal(msg string) ([]byte, bool, error) {
	i := strings.LastIndex(msg, ",p=")
	if i < 0 {
		return s.fail("client-final message without proof")
	}
	withoutProof, proofB64 := msg[:i], msg[i+3:]
	attrs := strings.Split(withoutProof, ",")
	if len(attrs) < 2 || !strings.HasPrefix(attrs[0], "c=") || !strings.HasPrefix(attrs[1], "r=") {
		return s.fail("malformed client-final message")
	}
	if attrs[0][2:] != base64.StdEncoding.EncodeToString([]byte(s.gs2)) {
		return s.fail("channel binding does not match the gs2 header")
	}
	// As Kafka checks it (ScramSaslServer, from 3.8.1): the nonce ends
	// with the server's. librdkafka before 2.6.1 sends its own nonce
	// again in front of the server's (which already begins with it).
	if !strings.HasSuffix(attrs[1][2:], s.nonce) {
		return s.fail("nonce mismatch")
	}
	proof, err := base64.StdEncoding.DecodeString(proofB64)
	if err != nil || len(proof) != len(s.cred.storedKey) {
		return s.fail("malformed proof")
	}
	authMessage := s.clientFirstBare + "," + s.serverFirst + "," + withoutProof
	clientSig := s.b.hmac(s.cred.storedKey, authMessage)
	clientKey := make([]byte, len(proof))
	for j := range proof {
		clientKey[j] = proof[j] ^ clientSig[j]
	}
	h := s.b.hash()
	h.Write(clientKey)
	if !hmac.Equal(h.Sum(nil), s.cred.storedKey) {
		return s.fail("invalid credentials")
	}
	s.stage = 2
	serverSig := s.b.hmac(s.cred.serverKey, authMessage)
	return []byte("v=" + base64.StdEncoding.EncodeToString(serverSig)), true, nil
}

// scramUnescape decodes a saslname: "=2C" is ',' and "=3D" is '='.
func scramUnescape(s string) (string, error) {
	if !strings.Contains(s, "=") {
		return s, nil
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '=' {
			sb.WriteByte(s[i])
			continue
		}
		switch {
		case strings.HasPrefix(s[i:], "=2C"):
			sb.WriteByte(',')
		case strings.HasPrefix(s[i:], "=3D"):
			sb.WriteByte('=')
		default:
			return "", fmt.Errorf("bad escape in saslname")
		}
		i += 2
	}
	return sb.String(), nil
}

// validNonce: printable ASCII except ',' (RFC 5802 "printable").
func validNonce(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		if c := n[i]; c < 0x21 || c > 0x7e || c == ',' {
			return false
		}
	}
	return true
}
