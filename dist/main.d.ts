export {};
//# sourceMappingURL=main.d.ts.map