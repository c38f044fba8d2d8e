package memory

import (
	"context"
	"hash/fnv"
	"math"
	"strings"

	"github.com/clinevo/clinevo/textmatch"
)

// Embedder turns text into a vector. The built-in one hashes features; a model
// endpoint can stand in for it (package llm).
type Embedder interface {
	// Model names the embedding model; it is stored with a bank so that vectors of
	// different models are never mixed.
	Model() string
	Dim() int
	// Embed embeds texts; errors are transient faults of a model endpoint.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// HashEmbedder is the feature-hashing embedder: stemmed content unigrams and
// bigrams hashed with a sign bit into Dim buckets, L2-normalised. It needs no
// network and is deterministic.
type HashEmbedder struct{ D int }

var _ Embedder = HashEmbedder{}

// DefaultDim is the default dimension of the hashing embedder.
const DefaultDim = 512

// Model names the embedder and its dimension.
func (h HashEmbedder) Model() string { return "clinevo-hash-v2" }

// Dim returns the vector size.
func (h HashEmbedder) Dim() int {
	if h.D <= 0 {
		return DefaultDim
	}
	return h.D
}

// Embed embeds each text; it never fails.
func (h HashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = h.Vector(t)
	}
	return out, nil
}

// Vector embeds one text.
func (h HashEmbedder) Vector(text string) []float32 {
	d := h.Dim()
	v := make([]float32, d)
	toks := textmatch.Tokens(text)
	add := func(f string, w float32) {
		hs := fnv.New64a()
		hs.Write([]byte(f))
		x := hs.Sum64()
		sign := float32(1)
		if x>>63 == 1 {
			sign = -1
		}
		v[x%uint64(d)] += sign * w
	}
	for i, t := range toks {
		add(t, 1)
		if c, ok := concepts[t]; ok {
			add("#"+c, 1)
		}
		if i > 0 {
			add(toks[i-1]+" "+t, 0.5)
		}
	}
	normalize(v)
	return v
}

// concepts map lay and clinical words (stemmed) onto a shared feature, so that
// "squeezing when I climb stairs" and "tight when I walk uphill" land near each
// other. Each word keeps its own feature too.
var concepts = func() map[string]string {
	groups := map[string]string{
		"constrict":   "tight tightness squeezing squeeze pressure pressing heavy heaviness band crushing",
		"exert":       "stairs stair hill hills uphill hurry exertion exert exercise walk walking climb climbing running",
		"urine":       "wee urine urinate urinating pee water bladder",
		"burn":        "burn burning burns sting stings stinging",
		"abdomen":     "tummy stomach belly abdomen abdominal",
		"breath":      "breath breathless breathlessness breathing wheeze wheezy",
		"fever":       "feverish fever temperature shivers shivery chills rigors hot",
		"vomit":       "vomit vomiting vomited throw",
		"vertigo":     "dizzy dizziness spin spins spinning vertigo whirl",
		"itch":        "itch itchy itching",
		"rash":        "rash patch patches blisters blistering spots",
		"fatigue":     "tired tiredness exhausted exhaustion fatigue weary energy",
		"mood":        "low flat sad enjoy",
		"anxiety":     "worry worrying anxious edge nerves panic",
		"palpitation": "palpitations racing pounding fluttering",
		"swell":       "swollen swelling swelled bigger puffy",
		"headache":    "headache headaches head",
		"throat":      "throat swallow swallowing tonsils",
		"numb":        "numb numbness tingling pins needles",
	}
	m := map[string]string{}
	for c, words := range groups {
		for _, w := range strings.Fields(words) {
			m[textmatch.Stem(w)] = c
		}
	}
	return m
}()

func normalize(v []float32) {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= inv
	}
}

// Cosine is the cosine similarity of two L2-normalised vectors.
func Cosine(a, b []float32) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return float64((s0 + s1) + (s2 + s3))
}

// Normalize scales a vector to unit length in place (cosine search assumes it).
func Normalize(v []float32) { normalize(v) }
