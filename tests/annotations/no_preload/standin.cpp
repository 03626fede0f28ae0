// A stand-in for libacs.so in the no-preload tests: the annotation API's
// implementation alone (linked whole), exporting acs_* as libacs.so does.
