package gpagent

import "github.com/clinevo/clinevo/clinic"

// TreatmentReference is what a treatment plan is judged against (appendix
// C.2): the case's ground-truth treatment, or its management key points
// where the corpus has none.
func TreatmentReference(c *clinic.Case) []string {
	if t := ManagementOf(c).Treatment; len(t) > 0 {
		return t
	}
	return c.Manager.Management
}

// Pathway is a case's ground-truth management label (§4, C.2): its
// management_label, or, where a corpus leaves it empty, refer when the
// referral is needed and manage when it is not; "" when the case says
// nothing about referral.
func Pathway(c *clinic.Case) string {
	m := c.Manager
	switch label := ManagementOf(c).Label; {
	case label != "":
		return label
	case m.Referral == nil:
		return ""
	case m.Referral.Needed:
		return PathwayRefer
	}
	return PathwayManage
}

// destinations lists every referral destination of a case that counts as
// correct.
func destinations(r *clinic.Referral) []string {
	if r == nil || r.Destination == "" {
		return nil
	}
	return append([]string{r.Destination}, r.Alternatives...)
}
