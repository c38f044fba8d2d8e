package memory

import (
	"fmt"
	"math"
	"sort"

	"github.com/clinevo/clinevo/clinic"
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
