package contract

import (
	"fmt"
	"slices"

	"github.com/clinevo/clinevo/settings"
)

// OrderingsRange bounds an experiment's orderings: each costs a full
// replay of its stream conditions, so the bound is clinevo's choice (the
// order-robustness studies we know vary the stream a few times: Evo-Memory
// arXiv 2511.20857, AgentCL arXiv 2606.02461).
var OrderingsRange = settings.Range{Min: 1, Max: 20, Zero: "the published order only"}

// OrderingName is the name of condition name's repeat in ordering k > 1.
func OrderingName(name string, k int) string { return fmt.Sprintf("%s.o%d", name, k) }

// SeedOf is the permutation seed of ordering k (1-based): 0 for the first,
// the published order.
func (e ExperimentSpec) SeedOf(k int) uint64 {
	switch {
	case k <= 1:
		return 0
	case k-2 < len(e.Seeds):
		return e.Seeds[k-2]
	}
	return uint64(k - 1)
}

// Expanded reports whether the spec's conditions were expanded by Expand.
func (e ExperimentSpec) Expanded() bool {
	return slices.ContainsFunc(e.Conditions, func(c ConditionSpec) bool { return c.Ordering > 0 })
}

// Repeated lists, in condition order, which conditions the orderings
// repeat: every stream condition, and every condition that depends on a
// repeated one (From, CarryFrom). A held-out condition that reads no stream
// is the same in every ordering and is played once.
func (e ExperimentSpec) Repeated() map[string]bool {
	out := map[string]bool{}
	for _, c := range e.Conditions {
		if c.Kind == KindStream || out[c.Dependency()] {
			out[c.Name] = true
		}
	}
	return out
}

// Expand writes out the orderings: with Orderings N > 1, every repeated
// condition (Repeated) keeps its name in the first ordering, the published
// order, and is repeated in orderings 2 to N as OrderingName(name, k), each
// reading the repeat of what it depends on and pairing with the repeat of
// its partner, its stream playing the same cases in the permutation of
// SeedOf(k). A stream on the update corpus is permuted within its stages,
// so the shifted stages stay where the update response reads them. The
// repeats follow the conditions, ordering by ordering. Expand of an
// expanded spec, or of one without orderings, returns it unchanged.
func (e ExperimentSpec) Expand() ExperimentSpec {
	if e.Orderings <= 1 || e.Expanded() {
		return e
	}
	rep := e.Repeated()
	base := slices.Clone(e.Conditions)
	for i, c := range base {
		if rep[c.Name] {
			base[i].Ordering = 1
		}
	}
	out := slices.Clone(base)
	for k := 2; k <= e.Orderings; k++ {
		for _, c := range base {
			if rep[c.Name] {
				out = append(out, e.repeat(c, k, rep))
			}
		}
	}
	e.Conditions = out
	return e
}

// repeat is condition c in ordering k.
func (e ExperimentSpec) repeat(c ConditionSpec, k int, rep map[string]bool) ConditionSpec {
	r := c
	r.Name, r.Replicates, r.Ordering = OrderingName(c.Name, k), c.Name, k
	if c.Label != "" {
		r.Label = fmt.Sprintf("%s (ordering %d)", c.Label, k)
	}
	for _, ref := range []*string{&r.From, &r.CarryFrom, &r.PairedWith} {
		if *ref != "" && rep[*ref] {
			*ref = OrderingName(*ref, k)
		}
	}
	if c.Kind == KindStream {
		r.Order = e.SeedOf(k)
		if len(e.UpdateStages) > 0 && c.Corpus != "" && c.Corpus != e.Corpus {
			r.OrderBlock = e.StageSize
		}
	}
	return r
}

// validateOrderings checks orderings and seeds.
func (e ExperimentSpec) validateOrderings() error {
	if err := numbers(numberCheck{"orderings", e.Orderings, OrderingsRange}); err != nil {
		return err
	}
	if len(e.Seeds) > 0 && len(e.Seeds) != max(e.Orderings-1, 0) {
		return fmt.Errorf("seeds: %d given, want one per ordering after the first (orderings %d: %d); the first ordering is the published order",
			len(e.Seeds), e.Orderings, max(e.Orderings-1, 0))
	}
	seen := map[uint64]int{}
	for i, s := range e.Seeds {
		if s == 0 {
			return fmt.Errorf("seeds[%d]: 0 is the published order (the first ordering); give a positive seed", i)
		}
		if j, ok := seen[s]; ok {
			return fmt.Errorf("seeds[%d]: %d repeats seeds[%d]: two orderings would be the same", i, s, j)
		}
		seen[s] = i
	}
	return nil
}
