package actor

import (
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// CaseState is the case-based clinician's reading of a view: what it asked
// and was told, the tests it requested, what rules and memory entries warn
// against, and the candidate diagnoses the retrieved cards support. It is the
// toolkit of a benchmark's own built-in policy (Policy), so that every
// built-in doctor ranks its experience the same way; it reads only the view.
type CaseState struct{ st *state }

// NewCaseState reads a view. also are texts the view reveals beyond its
// exchanges and test results (a benchmark's own results, such as what its
// tools returned): they count as revealed when the candidates are ranked.
func NewCaseState(v clinic.DoctorView, also ...string) CaseState {
	st := newState(v)
	if len(also) > 0 {
		st.revealed = textmatch.Union(st.revealed, textmatch.Set(strings.Join(also, " ")))
	}
	return CaseState{st}
}

// Candidate is a candidate diagnosis with the retrieved cards that support it.
type Candidate struct{ c candidate }

// Name is the candidate's diagnosis as its cards name it.
func (c Candidate) Name() string { return c.c.name }

// Cards are the retrieved cards that support it, in retrieval order.
func (c Candidate) Cards() []clinic.CardHint { return c.c.cards }

// Rank lists the candidates best first: by the similarity of their cards and
// how much of their evidence the revealed information shows, scaled down by
// the cards that say to avoid them (the clinician's ranking).
func (s CaseState) Rank() []Candidate {
	var out []Candidate
	for _, c := range s.st.rank() {
		out = append(out, Candidate{c})
	}
	return out
}

// TopicPlan is the order of history topics to cover: the rules' and memory
// entries', then the leading candidates' cards', or a structured history
// without candidates.
func (s CaseState) TopicPlan(cands []Candidate) []string { return s.st.topicPlan(unwrap(cands)) }

// TestPlan lists the catalog tests the leading candidate's cards used, then
// those its evidence names, after the tests the rules ask for.
func (s CaseState) TestPlan(cands []Candidate) []string { return s.st.testPlan(unwrap(cands)) }

// Asked reports whether a history topic was asked about.
func (s CaseState) Asked(topic string) bool { return s.st.asked[topic] }

// AskedBefore reports whether a question was asked before, in the same words
// after normalisation.
func (s CaseState) AskedBefore(question string) bool {
	return s.st.questions[textmatch.Normalize(question)]
}

// Requested reports whether a test was requested (by its catalog name).
func (s CaseState) Requested(test string) bool { return s.st.requested[s.st.canonical(test)] }

// Avoided reports whether a rule or a memory entry warns against a test.
func (s CaseState) Avoided(test string) bool { return s.st.avoid[s.st.canonical(test)] }

// WorkingNames are the leading three candidates' names, or the syndromic
// label of a doctor without memory.
func WorkingNames(cands []Candidate, v clinic.DoctorView) []string {
	return workingNames(unwrap(cands), v)
}

// Undifferentiated is the syndromic label a doctor without memory commits to.
func Undifferentiated(v clinic.DoctorView) string { return undifferentiated(v) }

// CardIDs are the IDs of the cards of the first n candidates, to cite.
func CardIDs(cands []Candidate, n int) []string { return cardIDs(unwrap(cands), n) }

func unwrap(cands []Candidate) []candidate {
	out := make([]candidate, len(cands))
	for i, c := range cands {
		out[i] = c.c
	}
	return out
}
