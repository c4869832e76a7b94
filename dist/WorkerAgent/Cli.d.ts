export {};
//# sourceMappingURL=Cli.d.ts.map