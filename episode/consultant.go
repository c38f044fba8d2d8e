package episode

import (
	"context"
	"strings"

	"github.com/clinevo/clinevo/clinic"
)

// Consultant gives a second opinion from the revealed context only: the
// DoctorView, which cannot hold hidden facts.
type Consultant interface {
	Advise(ctx context.Context, view clinic.DoctorView, question string) (string, error)
}

// BuiltinConsultant suggests the first core history topic not yet covered, or
// finalising once the core history is taken.
type BuiltinConsultant struct{}

var _ Consultant = BuiltinConsultant{}

// coreTopics is the consultant's idea of a minimal history.
var coreTopics = []string{clinic.TopicOnset, clinic.TopicCharacter, clinic.TopicAssociated, clinic.TopicTriggers, clinic.TopicPastHistory, clinic.TopicMedications}

// Advise returns at most one next question, or FINALIZE.
func (BuiltinConsultant) Advise(_ context.Context, view clinic.DoctorView, _ string) (string, error) {
	covered := map[string]bool{}
	for _, ex := range view.Exchanges {
		for _, t := range QuestionTopics(ex.Question) {
			covered[t] = true
		}
		if ex.Topic != "" {
			covered[ex.Topic] = true
		}
	}
	for _, t := range coreTopics {
		if !covered[t] {
			return "Consultant: the history does not yet cover " + strings.ReplaceAll(t, "_", " ") + "; ask about it next.", nil
		}
	}
	return "Consultant: the core history is covered; FINALIZE with your leading working diagnosis.", nil
}
