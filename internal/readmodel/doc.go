// Package readmodel reads what the console stored, without running it:
// consultations (with their index, filters and statistics), tasks,
// questions and permission requests as the store keeps them, and the
// description of an agent the console lists. It only reads the store, so
// the CLI (through the control socket or on a stopped console's store),
// the reports and the dashboard use it without linking the engine.
package readmodel
