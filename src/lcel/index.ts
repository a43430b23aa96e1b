// LCEL integration: withCompaction and CompactingChatMessageHistory. Re-exported from the package root.
export {};
