package memory

import (
	"fmt"
	"math"
	"sort"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// Credit is one utility update of one card at one episode (Store.Credit):
// first write per card and episode wins, so a retried activity changes nothing.
type Credit struct {
	Card string `json:"card"`
	clinic.Utility
}

// Credited is a card's utility history with u added in episode order; a
// history that already holds u's episode is returned as it is (first write
// wins), with false.
func Credited(history []clinic.Utility, u clinic.Utility) ([]clinic.Utility, bool) {
	for _, h := range history {
		if h.Episode == u.Episode {
			return history, false
		}
	}
	out := append(append([]clinic.Utility(nil), history...), u)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Episode < out[j].Episode })
	return out, true
}

// UtilityAsOf cuts a card's utility history to the entries of episodes up to
// a filter's AsOf, so that a read as of episode N sees the utility as it
// stood after N; AsOf 0 (now) keeps it all. Both backends apply it to what
// List and Search return.
func UtilityAsOf(c *clinic.Card, f Filter) {
	if f.AsOf <= 0 {
		return
	}
	n := sort.Search(len(c.Utility), func(i int) bool { return c.Utility[i].Episode > f.AsOf })
	if n < len(c.Utility) {
		c.Utility = c.Utility[:n:n]
	}
}

// QBefore is a card's utility before episode n (the last update of an earlier
// episode), or initial when none credited it: what a learning method updates
// from when it learns from episode n, whatever a retry already wrote at n.
func QBefore(c clinic.Card, n int, initial float64) float64 {
	q := initial
	for _, h := range c.Utility {
		if h.Episode >= n {
			break
		}
		q = h.Q
	}
	return q
}

// Q is a card's latest utility in what was read of it, or initial.
func Q(c clinic.Card, initial float64) float64 { return QBefore(c, math.MaxInt, initial) }

// CheckCredits refuses credits no store may write: no card, an episode
// before the first, a utility that is not a finite number.
func CheckCredits(credits []Credit) error {
	for i, c := range credits {
		switch {
		case c.Card == "":
			return fmt.Errorf("memory: credit %d: no card id", i)
		case c.Episode < 1:
			return fmt.Errorf("memory: credit %d (card %s): episode %d, want 1 or more", i, c.Card, c.Episode)
		case math.IsNaN(c.Q) || math.IsInf(c.Q, 0) || math.IsNaN(c.Reward) || math.IsInf(c.Reward, 0):
			return fmt.Errorf("memory: credit %d (card %s): q %v and reward %v must be finite numbers", i, c.Card, c.Q, c.Reward)
		}
	}
	return nil
}

// RankMemRL is MemRL's value-aware selection (phase B of its two-phase
// retrieval, arXiv 2601.03192): among candidates recalled by similarity
// (phase A), the k best by
//
//	score = (1 − λ)·z(sim) + λ·z(Q)
//
// where z standardises over the candidates (mean 0, population standard
// deviation 1; a spread under 1e-9 counts as 1) and z(Q) is clipped to ±3, as
// the authors' released code does (memrl/service/memory_service.py,
// _normalize_q). The paper's text standardises both terms; the released
// code takes the similarity's mean and spread from corpus statistics, which
// clinevo has none of, so both are standardised over the candidates
// (clinevo's choice). Q is each card's utility as read (initial when none),
// ties go to the more similar card, then the lower ID. Hits keep their
// similarity as Score: only the order is the utility's.
func RankMemRL(hits []Hit, k int, lambda, initial float64) []Hit {
	sims, qs := make([]float64, len(hits)), make([]float64, len(hits))
	for i, h := range hits {
		sims[i], qs[i] = h.Score, Q(h.Card, initial)
	}
	zs, zq := standard(sims), standard(qs)
	score := make(map[string]float64, len(hits))
	for i, h := range hits {
		score[h.Card.ID] = (1-lambda)*zs[i] + lambda*max(-3, min(3, zq[i]))
	}
	return rankBy(hits, k, score)
}

// RankMemento is Memento's parametric case selection (arXiv 2508.16153:
// the planner reads the top-k cases by Q(s, c)) with its kernel estimate of
// Q over the episodic memory of past states:
//
//	Q(s, c) = Σ k(s, s_i)·r_i / Σ k(s, s_i),  k(s, s') = exp(sim(s, s')/τ)
//
// over the states s_i of the episodes that retrieved card c and their
// rewards r_i (the card's utility history), with s the present
// presentation. The paper learns its kernel (k_θ); clinevo's is fixed: sim
// is the Jaccard similarity of the two presentations' content words
// (textmatch), τ the temperature (settings.Utility.Tau). A card no episode
// credited has the initial utility. Candidates come by similarity first (the
// paper ranks the whole case bank; clinevo ranks the k1 most similar, so that
// a bank of thousands is not scored at every turn). Ties go to the more
// similar card, then the lower ID; hits keep their similarity as Score.
func RankMemento(hits []Hit, k int, state string, tau, initial float64) []Hit {
	now := textmatch.Set(state)
	score := make(map[string]float64, len(hits))
	for _, h := range hits {
		score[h.Card.ID] = KernelQ(h.Card, now, tau, initial)
	}
	return rankBy(hits, k, score)
}

// KernelQ is Memento's kernel estimate of Q(s, c) for a card and the
// content words of the present state (RankMemento).
func KernelQ(c clinic.Card, state map[string]bool, tau, initial float64) float64 {
	var num, den float64
	for _, u := range c.Utility {
		w := math.Exp(textmatch.Jaccard(state, textmatch.Set(u.State)) / tau)
		num, den = num+w*u.Reward, den+w
	}
	if den == 0 {
		return initial
	}
	return num / den
}

// standard is xs standardised: (x − mean)/sd, sd the population standard
// deviation, 1 when under 1e-9.
func standard(xs []float64) []float64 {
	var mean, v float64
	for _, x := range xs {
		mean += x / float64(len(xs))
	}
	for _, x := range xs {
		v += (x - mean) * (x - mean) / float64(len(xs))
	}
	sd := math.Sqrt(v)
	if sd < 1e-9 {
		sd = 1
	}
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = (x - mean) / sd
	}
	return out
}

// rankBy orders hits by score, then similarity, then ID, and keeps k.
func rankBy(hits []Hit, k int, score map[string]float64) []Hit {
	out := append([]Hit(nil), hits...)
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if sa, sb := score[a.Card.ID], score[b.Card.ID]; sa != sb {
			return sa > sb
		}
		return Better(a, b)
	})
	if k > 0 && len(out) > k {
		out = out[:k]
	}
	return out
}
