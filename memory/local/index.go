package local

import (
	"fmt"
	"math"
	"math/bits"
	"sort"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/memory"
)

// block is the number of cards whose quantised vectors lie together dimension
// by dimension: the prefilter reads one dimension of a block as one run of
// 1,024 bytes, and only the dimensions in which the query is not zero (the
// hashing embedder's vectors have a few dozen of 512).
const block = 1024

// index is the in-memory copy of a bank that searches read: the filter fields
// and the vector of every card, with no text. A card keeps its position when it
// is written again.
type index struct {
	dim  int
	pos  map[string]int // card ID → position
	ids  []string
	meta []cardMeta
	rows []float32 // the vectors, one after the other: card p's is rows[p*dim:(p+1)*dim]
	// codes holds every vector quantised to int8, block by block and dimension
	// by dimension inside a block: dimension j of card p is
	// codes[(p/block)*block*dim + j*block + p%block]. Lanes past the last card
	// are zero.
	codes []int8
	// quant is what bounds the prefilter's error for each card (see search).
	quant []quantisation
	// minCreated is the smallest creation episode in each block, so that an
	// as-of search skips blocks written after its episode.
	minCreated []int

	runs, banks, kinds names

	// Scratch space of search, reused: the store's mutex serialises searches.
	nz      []weight
	bounded []bounds
	lower   []float64
}

// cardMeta is what memory.Match reads of a card, with its strings interned.
type cardMeta struct {
	created, evicted, pass, stage int
	run, bank, kind               int32
}

// quantisation is card p's int8 code scale (vector ≈ scale·code) and the two
// factors of its prefilter error bound: E = ‖q‖₁·a + ‖q‖₂·b.
type quantisation struct {
	scale float32
	a, b  float64
}

// names interns strings as small integers.
type names struct {
	ids map[string]int32
	n   int32
}

func (n *names) id(s string) int32 {
	if id, ok := n.ids[s]; ok {
		return id
	}
	if n.ids == nil {
		n.ids = map[string]int32{}
	}
	n.ids[s] = n.n
	n.n++
	return n.n - 1
}

type weight struct {
	j int
	w float32
}

// bounds are lower and upper bounds of a card's exact score.
type bounds struct {
	p            int
	lower, upper float64
}

// result is a card position with its exact score.
type result struct {
	p     int
	score float64
}

func newIndex(dim int) *index {
	return &index{dim: dim, pos: map[string]int{}}
}

// gamma is γ_n = n·u/(1−n·u) for float32 (u = 2⁻²⁴): a float32 sum of n
// products, in any order, is within γ_n·Σ|x_j·y_j| of the exact dot product
// (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., §3.1).
func gamma(n int) float64 {
	nu := float64(n) * 0x1p-24
	return nu / (1 - nu)
}

// checkVector returns an error unless vec has dim finite values: the
// prefilter's bounds and the exact order hold for finite scores only.
func checkVector(what string, vec []float32, dim int) error {
	if len(vec) != dim {
		return fmt.Errorf("%s: vector has %d dimensions, the bank has %d", what, len(vec), dim)
	}
	for j, x := range vec {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%s: vector value %d is %v, want a finite number", what, j, x)
		}
	}
	return nil
}

// set writes a card's filter fields and vector (checked by checkVector). A
// new card takes its eviction episode from c; a card already present keeps its
// own, so that rewriting a card never resurrects it.
func (ix *index) set(c *clinic.Card, vec []float32) {
	p, ok := ix.pos[c.ID]
	evicted := c.EvictedEpisode
	if ok {
		evicted = ix.meta[p].evicted
	} else {
		p = len(ix.ids)
		ix.pos[c.ID] = p
		ix.ids = append(ix.ids, c.ID)
		ix.meta = append(ix.meta, cardMeta{})
		ix.quant = append(ix.quant, quantisation{})
		ix.rows = append(ix.rows, make([]float32, ix.dim)...)
		if p%block == 0 {
			ix.codes = append(ix.codes, make([]int8, block*ix.dim)...)
			ix.minCreated = append(ix.minCreated, c.CreatedEpisode)
		}
	}
	ix.meta[p] = cardMeta{created: c.CreatedEpisode, evicted: evicted, pass: c.Pass, stage: c.Stage,
		run: ix.runs.id(c.Run), bank: ix.banks.id(c.Bank), kind: ix.kinds.id(string(c.Kind))}
	ix.minCreated[p/block] = min(ix.minCreated[p/block], c.CreatedEpisode)
	copy(ix.rows[p*ix.dim:], vec)

	var largest, sq float64
	for _, x := range vec {
		largest = max(largest, math.Abs(float64(x)))
		sq += float64(x) * float64(x)
	}
	scale := float32(largest / 127)
	base, lane := (p/block)*block*ix.dim, p%block
	var worst float64 // the largest |x − scale·code|
	for j, x := range vec {
		var code int8
		if scale > 0 {
			code = int8(max(-127, min(127, math.Round(float64(x/scale)))))
		}
		ix.codes[base+j*block+lane] = code
		worst = max(worst, math.Abs(float64(x)-float64(scale)*float64(code)))
	}
	// The prefilter sums q_j·code_j in float32 and multiplies by scale (n + 1
	// roundings of terms at most |q_j|·127·scale), against the true dot product
	// it misses Σ|q_j|·worst; memory.Cosine itself is within γ_dim·‖q‖₂·‖v‖₂.
	g := gamma(ix.dim + 1)
	ix.quant[p] = quantisation{scale: scale, a: worst + g*127*float64(scale), b: g * math.Sqrt(sq)}
}

// evict marks a card evicted at an episode unless it already is.
func (ix *index) evict(id string, episode int) {
	if p, ok := ix.pos[id]; ok && ix.meta[p].evicted == 0 {
		ix.meta[p].evicted = episode
	}
}

func (ix *index) row(p int) []float32 { return ix.rows[p*ix.dim : (p+1)*ix.dim] }

// filter is a memory.Filter compiled against the index's interned strings.
type filter struct {
	f     memory.Filter
	runs  []bool // by run id; nil: every run
	bank  int32  // -1: every bank
	kinds []bool // by kind id; nil: every kind
}

// compile compiles f; false means no card can match.
func (ix *index) compile(f memory.Filter) (filter, bool) {
	c := filter{f: f, bank: -1}
	pick := func(n *names, want []string) ([]bool, bool) {
		set, any := make([]bool, n.n), false
		for _, s := range want {
			if id, ok := n.ids[s]; ok {
				set[id], any = true, true
			}
		}
		return set, any
	}
	ok := true
	if len(f.Runs) > 0 {
		c.runs, ok = pick(&ix.runs, f.Runs)
	}
	if len(f.Kinds) > 0 && ok {
		kinds := make([]string, len(f.Kinds))
		for i, k := range f.Kinds {
			kinds[i] = string(k)
		}
		c.kinds, ok = pick(&ix.kinds, kinds)
	}
	if f.Bank != "" && ok {
		c.bank, ok = ix.banks.ids[f.Bank]
	}
	return c, ok
}

// match is memory.Match on a card's interned fields.
func (c *filter) match(m *cardMeta) bool {
	if !memory.LiveAt(m.created, m.evicted, c.f) {
		return false
	}
	return (c.runs == nil || c.runs[m.run]) && (c.bank < 0 || m.bank == c.bank) && (c.kinds == nil || c.kinds[m.kind]) &&
		(c.f.Pass == 0 || m.pass == c.f.Pass) && (c.f.Stage == 0 || m.stage == c.f.Stage)
}

// skip reports whether no card of block b can match: all were created after
// the as-of episode.
func (c *filter) skip(ix *index, b int) bool { return c.f.AsOf > 0 && ix.minCreated[b] > c.f.AsOf }

// list returns the positions of the cards a filter selects.
func (ix *index) list(f memory.Filter) []int {
	c, ok := ix.compile(f)
	if !ok {
		return nil
	}
	var out []int
	for p := range ix.meta {
		if c.match(&ix.meta[p]) {
			out = append(out, p)
		}
	}
	return out
}

// better is the order of results: higher score, then lower card ID.
func (ix *index) better(a, b result) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return ix.ids[a.p] < ix.ids[b.p]
}

// search returns the k cards a filter selects that are most similar to q
// (every selected card if k ≤ 0), best first, scored by memory.Cosine: the
// same cards in the same order as scoring every selected card with
// memory.Cosine.
//
// A prefilter first scores every selected card from its int8 code, reading
// only the dimensions in which q is not zero, and bounds the exact score: it
// lies within E = ‖q‖₁·a + ‖q‖₂·b of the prefilter's (quantisation). If L is the
// k-th largest lower bound, k cards score at least L, so a card whose upper
// bound is below L cannot be in the top k; the others are scored exactly. The
// bound used is twice E, which covers the rounding of the bound itself.
func (ix *index) search(q []float32, f memory.Filter, k int) []result {
	c, ok := ix.compile(f)
	if !ok {
		return nil
	}
	if k <= 0 {
		return ix.all(q, c)
	}
	l1, l2 := ix.weights(q)
	ix.bounded, ix.lower = ix.bounded[:0], ix.lower[:0]
	for base := 0; base < len(ix.ids); base += block {
		if !c.skip(ix, base/block) {
			ix.bound(c, base, k, l1, l2)
		}
	}
	return ix.rerank(q, k)
}

// all scores every card the filter selects, best first.
func (ix *index) all(q []float32, c filter) []result {
	var all []result
	for p := range len(ix.ids) {
		if c.match(&ix.meta[p]) {
			all = append(all, result{p, memory.Cosine(q, ix.row(p))})
		}
	}
	sort.Slice(all, func(i, j int) bool { return ix.better(all[i], all[j]) })
	return all
}

// weights keeps the query's non-zero weights in ix.nz and returns its L1
// and L2 norms, which bound the error of a quantised score.
func (ix *index) weights(q []float32) (l1, l2 float64) {
	ix.nz = ix.nz[:0]
	for j, x := range q {
		if x != 0 {
			ix.nz = append(ix.nz, weight{j, x})
			l1 += math.Abs(float64(x))
			l2 += float64(x) * float64(x)
		}
	}
	return l1, math.Sqrt(l2)
}

// bound scores the selected cards of the block at base on their quantised
// codes, keeping each score's bounds in ix.bounded and the k largest lower
// bounds in ix.lower.
func (ix *index) bound(c filter, base, k int, l1, l2 float64) {
	var mask [block / 64]uint64
	any := false
	for i := range min(block, len(ix.ids)-base) {
		if c.match(&ix.meta[base+i]) {
			mask[i/64] |= 1 << (i % 64)
			any = true
		}
	}
	if !any {
		return
	}
	var acc [block]float32
	codes := ix.codes[base*ix.dim : (base+block)*ix.dim]
	for _, z := range ix.nz {
		col := (*[block]int8)(codes[z.j*block:])
		for i := range acc {
			acc[i] += z.w * float32(col[i])
		}
	}
	for w, bitsLeft := range mask {
		for ; bitsLeft != 0; bitsLeft &= bitsLeft - 1 {
			i := w*64 + bits.TrailingZeros64(bitsLeft)
			qt := ix.quant[base+i]
			s := float64(acc[i] * qt.scale)
			e := 2 * (l1*qt.a + l2*qt.b)
			ix.bounded = append(ix.bounded, bounds{base + i, s - e, s + e})
			ix.lower = keepTop(ix.lower, s-e, k)
		}
	}
}

// rerank scores exactly the cards whose upper bound reaches the k-th
// largest lower bound, and keeps the k best in order.
func (ix *index) rerank(q []float32, k int) []result {
	threshold := math.Inf(-1)
	if len(ix.lower) == k {
		threshold = ix.lower[0]
	}
	var best []result
	for _, b := range ix.bounded {
		if b.upper < threshold {
			continue
		}
		r := result{b.p, memory.Cosine(q, ix.row(b.p))}
		if len(best) == k && !ix.better(r, best[k-1]) {
			continue
		}
		i := len(best)
		best = append(best, r)
		for ; i > 0 && ix.better(r, best[i-1]); i-- {
			best[i] = best[i-1]
		}
		best[i] = r
		if len(best) > k {
			best = best[:k]
		}
	}
	return best
}

// keepTop keeps the k largest values seen in a min-heap: top[0] is the k-th
// largest once k are kept.
func keepTop(top []float64, v float64, k int) []float64 {
	if len(top) < k {
		top = append(top, v)
		for i := len(top) - 1; i > 0; {
			parent := (i - 1) / 2
			if top[parent] <= top[i] {
				break
			}
			top[parent], top[i] = top[i], top[parent]
			i = parent
		}
		return top
	}
	if v <= top[0] {
		return top
	}
	top[0] = v
	for i := 0; ; {
		l, small := 2*i+1, i
		if l < len(top) && top[l] < top[small] {
			small = l
		}
		if l+1 < len(top) && top[l+1] < top[small] {
			small = l + 1
		}
		if small == i {
			return top
		}
		top[i], top[small] = top[small], top[i]
		i = small
	}
}
