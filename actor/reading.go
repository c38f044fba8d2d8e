package actor

import (
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// Reading is the built-in doctor's reading of a view, for a benchmark's own
// policy (Policy) to build on: the candidate diagnoses the retrieved cards
// suggest, ranked against what the view has revealed, the history topics to
// cover, and the rules in force, read as Builtin reads them.
type Reading struct {
	st    *state
	cands []candidate
}

// Read reads v as Builtin does. also are texts the view reveals beyond its
// exchanges and test results (a benchmark's own results, such as what its
// tools returned); they count as revealed when the candidates are ranked.
func Read(v clinic.DoctorView, also ...string) *Reading {
	st := newState(v)
	if len(also) > 0 {
		st.revealed = textmatch.Union(st.revealed, textmatch.Set(strings.Join(also, " ")))
	}
	return &Reading{st: st, cands: st.rank()}
}

// Working are the working diagnoses: the leading candidates (at most three),
// or, without any, the syndromic label of the presentation.
func (r *Reading) Working() []string { return workingNames(r.cands, r.st.v) }

// Leading is the leading candidate's name and the cards that support it;
// ok is false when the cards suggest no candidate.
func (r *Reading) Leading() (name string, cards []clinic.CardHint, ok bool) {
	if len(r.cands) == 0 {
		return "", nil, false
	}
	return r.cands[0].name, r.cands[0].cards, true
}

// Topics are the history topics to cover, in order: the rules' and the
// leading candidates' cards', or a structured history without memory.
func (r *Reading) Topics() []string { return r.st.topicPlan(r.cands) }

// Asked reports whether a history topic has been asked about.
func (r *Reading) Asked(topic string) bool { return r.st.asked[topic] }

// CardIDs are the IDs of the leading candidate's cards: what an action that
// follows them cites.
func (r *Reading) CardIDs() []string { return cardIDs(r.cands, 1) }
