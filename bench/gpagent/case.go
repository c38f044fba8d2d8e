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
