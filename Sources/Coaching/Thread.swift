enum CoachingPlaceholderUntilNextCommit {}
