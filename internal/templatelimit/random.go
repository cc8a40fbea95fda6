package templatelimit

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"sync"
	"text/template"
)

// Sprig's random functions (randAlphaNum and the other random strings,
// randBytes, randInt, uuidv4, shuffle) draw from the operating system's
// random source, so a chart that names an object with one (a test Pod
// `name-{{ randAlphaNum 5 }}`, a `rollme` annotation, a generated
// password) renders differently every time: a review would show that
// object removed at base and added at head, its findings "introduced",
// and the same revisions would not give the same bytes twice.
//
// Funcs' random functions draw from a stream of its own instead, seeded
// the same for every render: Helm executes a chart's templates one after
// another in a fixed order (engine.sortTemplates), so the same chart and
// values give the same values, at both revisions of a review, in every
// shard and on every machine. They have Sprig's alphabets and lengths,
// not its unpredictability: a rendered "random" password is a constant
// here, as it would be in any file a review prints (Secrets' values are
// redacted). Key and certificate generation (genCA, genPrivateKey, ...),
// bcrypt and htpasswd salts and the time (now) are still Sprig's.

// Random says where the random functions draw from.
type Random int

const (
	// Seeded: a stream seeded the same for every render (reviews,
	// analysis: the same bytes every time).
	Seeded Random = iota
	// Unpredictable: Sprig's own, the operating system's random source
	// (output that is applied: a generated password must not be a value
	// anyone can compute).
	Unpredictable
)

// The seed of every stream: "routeguard".
const seedHi, seedLo = 0x726f757465677561, 0x7264

// Alphabets of Sprig's random strings (goutils' CryptoRandom*).
const (
	letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	digits  = "0123456789"
)

// stream is one render's random source; a template may call its
// functions from several goroutines (an ApplicationSet's base template).
type stream struct {
	mu sync.Mutex
	r  *rand.Rand
}

func newStream() *stream { return &stream{r: rand.New(rand.NewPCG(seedHi, seedLo))} }

// chars is n characters of alphabet (ascii: the printable ASCII range,
// ' ' to '~', as randAscii draws them); nothing for n <= 0, as Sprig.
func (s *stream) chars(alphabet string, ascii bool, n int) string {
	if n <= 0 {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b := make([]byte, n)
	for i := range b {
		if ascii {
			b[i] = byte(' ' + s.r.IntN('~'-' '+1))
		} else {
			b[i] = alphabet[s.r.IntN(len(alphabet))]
		}
	}
	return string(b)
}

func (s *stream) bytes(n int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(s.r.Uint32())
	}
	return b
}

// uuidv4 is a version 4, variant 1 UUID, as uuid.New formats it.
func (s *stream) uuidv4() string {
	b := s.bytes(16)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// randInt is an int in [min, max); Sprig panics when max <= min.
func (s *stream) randInt(min, max int) (int, error) {
	if max <= min {
		return 0, fmt.Errorf("randInt: max %d is not above min %d", max, min)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return min + s.r.IntN(max-min), nil
}

// shuffle is str's characters in a random order (xstrings.Shuffle).
func (s *stream) shuffle(str string) string {
	r := []rune(str)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.r.Shuffle(len(r), func(i, j int) { r[i], r[j] = r[j], r[i] })
	return string(r)
}

// source is where the random functions draw from, before the bounds.
type source struct {
	strings map[string]func(int) string // randAlpha, randAlphaNum, randAscii, randNumeric
	bytes   func(int) (string, error)   // randBytes
	others  template.FuncMap            // randInt, uuidv4, shuffle
}

// sources is random's source: a fresh seeded stream, or Sprig's own.
func sources(random Random) source {
	if random == Unpredictable {
		src := source{strings: map[string]func(int) string{}, bytes: sprigFuncs["randBytes"].(func(int) (string, error)),
			others: template.FuncMap{"randInt": sprigFuncs["randInt"], "uuidv4": sprigFuncs["uuidv4"], "shuffle": sprigFuncs["shuffle"]}}
		for _, name := range []string{"randAlpha", "randAlphaNum", "randAscii", "randNumeric"} {
			src.strings[name] = sprigFuncs[name].(func(int) string)
		}
		return src
	}
	s := newStream()
	str := func(alphabet string, ascii bool) func(int) string {
		return func(n int) string { return s.chars(alphabet, ascii, n) }
	}
	return source{
		strings: map[string]func(int) string{"randAlpha": str(letters, false), "randAlphaNum": str(letters+digits, false),
			"randAscii": str("", true), "randNumeric": str(digits, false)},
		bytes:  func(n int) (string, error) { return base64.StdEncoding.EncodeToString(s.bytes(n)), nil },
		others: template.FuncMap{"randInt": s.randInt, "uuidv4": s.uuidv4, "shuffle": s.shuffle},
	}
}

// random is the bounded randAlpha, randAlphaNum, randAscii or
// randNumeric, drawing from gen.
func (b bounds) random(name string, gen func(int) string) func(int) (string, error) {
	return func(count int) (string, error) {
		if err := b.check(name, mul(int64(max(count, 0)), 4)); err != nil {
			return "", err
		}
		return gen(count), nil
	}
}

// randBytes is the bounded randBytes (count bytes, base64), drawing from
// gen.
func (b bounds) randBytes(gen func(int) (string, error)) func(int) (string, error) {
	return func(count int) (string, error) {
		if count < 0 {
			return "", negative("randBytes", count)
		}
		if err := b.check("randBytes", mul(int64(count), 2)); err != nil {
			return "", err
		}
		return gen(count)
	}
}
