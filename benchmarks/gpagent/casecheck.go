package gpagent

import (
	"fmt"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
)

var _ corpus.CaseFields = Benchmark{}

// CaseFields are the manager view's management_label and treatment.
func (Benchmark) CaseFields() (exam, manager []string) {
	return nil, []string{"management_label", "treatment"}
}

// checkCase checks the management fields of a case (§3 and C.2) where it has
// them: the label manage | refer, agreeing with the referral; a refer case
// names its destination and urgency; alternative destinations, red flags and
// the ground-truth treatment hold no empty item. A case without a label
// reads its pathway from the referral (Pathway).
func checkCase(c *clinic.Case) error {
	fail := func(field, msg string) error { return corpus.FieldError{Field: field, Msg: msg} }
	var m Management
	if err := c.Manager.Ext.Decode(&m); err != nil {
		return fail("manager_view", fmt.Sprintf("management_label must be text and treatment a list of texts: %v", err))
	}
	r := c.Manager.Referral
	switch m.Label {
	case "":
	case PathwayRefer:
		switch {
		case r == nil || !r.Needed:
			return fail("manager_view.referral.needed", "must be true for management_label refer")
		case strings.TrimSpace(r.Destination) == "":
			return fail("manager_view.referral.destination", "required for management_label refer")
		case r.Urgency == "":
			return fail("manager_view.referral.urgency", "required for management_label refer (routine, urgent or emergency)")
		}
	case PathwayManage:
		if r != nil && r.Needed {
			return fail("manager_view.referral.needed", "must be false (or the referral absent) for management_label manage")
		}
	default:
		return fail("manager_view.management_label", fmt.Sprintf("unknown label %q, want manage or refer", m.Label))
	}
	if r != nil {
		for _, l := range []struct {
			field string
			items []string
		}{{"alternative_destinations", r.Alternatives}, {"red_flags", r.RedFlags}} {
			for i, x := range l.items {
				if strings.TrimSpace(x) == "" {
					return fail(fmt.Sprintf("manager_view.referral.%s[%d]", l.field, i), "must not be empty")
				}
			}
		}
	}
	for i, x := range m.Treatment {
		if strings.TrimSpace(x) == "" {
			return fail(fmt.Sprintf("manager_view.treatment[%d]", i), "must not be empty")
		}
	}
	return nil
}
