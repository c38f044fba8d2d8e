package gpagent

import "github.com/clinevo/clinevo/clinic"

// TreatmentReference is what a treatment plan is judged against (appendix
// C.2): the case's ground-truth treatment, or its management key points
// where the corpus has none.
func TreatmentReference(c *clinic.Case) []string {
	if len(c.Manager.Treatment) > 0 {
		return c.Manager.Treatment
	}
	return c.Manager.Management
}

// Pathway is a case's ground-truth management label (§4, C.2): its
// management_label, or, where a corpus leaves it empty, refer when the
// referral is needed and manage when it is not; "" when the case says
// nothing about referral.
func Pathway(c *clinic.Case) string {
	m := c.Manager
	switch {
	case m.ManagementLabel != "":
		return m.ManagementLabel
	case m.Referral == nil:
		return ""
	case m.Referral.Needed:
		return clinic.PathwayRefer
	}
	return clinic.PathwayManage
}
