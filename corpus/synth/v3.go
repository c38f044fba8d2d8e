package synth

import (
	"fmt"
	"strconv"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// Version 3 keeps some conditions out of the stream so that a held-out score
// can tell transfer to an unmet condition from recall of a met one (the
// held-out test H0/H3 of MedEvoEval §3–4 asks about transfer; a benchmark
// whose paper draws most test diagnoses from outside training builds its own
// split the same way in its bench folder). The counts are
// clinevo's choice (no paper gives them for a synthetic corpus): a third of the
// table unseen, and 40 of the 100 held-out cases on those conditions, so that
// both halves of the seen/unseen split hold enough cases for an interval.
const (
	V3UnseenConditions = 15 // of the table's conditions, never in the stream, update or cross split
	V3HeldOutUnseen    = 40 // held-out cases on an unseen condition; the other 60 are new presentations of seen ones
)

// SourceV3 is the provenance source of version 3's cases.
const SourceV3 = "clinevo-synth/3"

// UnseenV3 lists the keys of the conditions version 3 keeps out of the stream
// for a seed, in table order.
func UnseenV3(seed uint64) []string {
	g := generator{version: V3, seed: seed}
	var out []string
	for i := range conditions {
		if g.unseenV3()[i] {
			out = append(out, conditions[i].key)
		}
	}
	return out
}

// unseenV3 is the set of table indexes kept out of the stream, drawn by seed.
func (g generator) unseenV3() map[int]bool {
	out := map[int]bool{}
	for _, i := range g.rng("v3/unseen").Perm(len(conditions))[:V3UnseenConditions] {
		out[i] = true
	}
	return out
}

// orderOf returns n indexes of pool: whole permutations of it, topped up at random.
func (g generator) orderOf(pool []int, split string, block, n int) []int {
	r := g.rng("order/v3", split, strconv.Itoa(block))
	var idx []int
	for len(idx) < n {
		for _, p := range r.Perm(len(pool)) {
			idx = append(idx, pool[p])
		}
	}
	return idx[:n]
}

// generateV3 builds version 3's splits with version 2's case builder: the
// stream, update and cross splits hold only seen conditions (every seen
// condition in every stage of the stream); the held-out split holds
// V3HeldOutUnseen cases of unseen conditions and new presentations of seen
// ones, in a seeded mixed order, no opening repeating one of the stream's.
func (g generator) generateV3() map[string][]clinic.Case {
	unseen := g.unseenV3()
	var seenPool, unseenPool []int
	for i := range conditions {
		if unseen[i] {
			unseenPool = append(unseenPool, i)
		} else {
			seenPool = append(seenPool, i)
		}
	}
	out := map[string][]clinic.Case{}
	stream := func(split string, shifted bool) []clinic.Case {
		var cs []clinic.Case
		for s := 1; s <= StreamStages; s++ {
			for i, ci := range g.orderOf(seenPool, "stream", s, StageSize) {
				n := (s-1)*StageSize + i + 1
				shift := shifted && isUpdateStage(s)
				instance := "stream"
				if shift {
					instance = "update"
				}
				c := g.buildV3(ci, instance, n, shift, nil)
				c.ID = fmt.Sprintf("%s-%04d", split, n)
				c.Meta = clinic.CaseMeta{Split: split, Stage: s, Shifted: shift}
				cs = append(cs, c)
			}
		}
		return cs
	}
	out["stream"] = stream("stream", false)
	out["update"] = stream("update", true)
	avoid := map[string]bool{}
	for _, split := range []string{"stream", "update"} {
		for _, c := range out[split] {
			avoid[textmatch.Normalize(c.Patient.OpeningComplaint)] = true
		}
	}
	flat := func(split string, order []int) []clinic.Case {
		var cs []clinic.Case
		for i, ci := range order {
			c := g.buildV3(ci, split, i+1, false, avoid)
			c.ID = fmt.Sprintf("%s-%04d", split, i+1)
			c.Meta = clinic.CaseMeta{Split: split}
			cs = append(cs, c)
		}
		return cs
	}
	held := append(g.orderOf(unseenPool, "heldout/unseen", 0, V3HeldOutUnseen),
		g.orderOf(seenPool, "heldout/seen", 0, HeldOutSize-V3HeldOutUnseen)...)
	mix := g.rng("order/v3", "heldout/mix").Perm(len(held))
	order := make([]int, len(held))
	for i, p := range mix {
		order[i] = held[p]
	}
	out["heldout"] = flat("heldout", order)
	out["cross"] = flat("cross", g.orderOf(seenPool, "cross", 0, CrossSize))
	return out
}

// buildV3 is version 2's case builder under version 3's provenance.
func (g generator) buildV3(ci int, instance string, n int, shifted bool, avoid map[string]bool) clinic.Case {
	c := g.buildV2(conditions[ci], instance, n, shifted, avoid)
	c.Provenance.Source = SourceV3
	return c
}
