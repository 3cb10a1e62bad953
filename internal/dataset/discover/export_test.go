package discover

// ParseTime is parseTime, for the fuzz test.
var ParseTime = parseTime
