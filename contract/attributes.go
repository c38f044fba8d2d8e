package contract

// SearchAttributes are the custom search attributes of clinevo's workflows,
// each with its type as the Temporal CLI names it (`temporal operator
// search-attribute create --name N --type T`). Temporal reserves "RunId" for
// its own run IDs, so the clinevo run is ClinevoRun. The embedded server
// registers them (devserver), the compose setup script lists them
// (deploy/temporal-setup.sh) and another Temporal needs them all.
var SearchAttributes = map[string]string{
	"ClinevoRun":   "Keyword",
	"CaseId":       "Keyword",
	"Condition":    "Keyword",
	"Kind":         "Keyword",
	"Stage":        "Int",
	"Pass":         "Int",
	"EpisodeIndex": "Int",
	"Score":        "Double",
	// ClinevoWaiting holds, while a workflow waits out a failing dependency,
	// the dependency's name (workflows.AttrWaiting).
	"ClinevoWaiting": "Keyword",
	// ClinevoOutcome holds how a finished stream ended: completed or
	// stopped (workflows.AttrOutcome).
	"ClinevoOutcome": "Keyword",
}
